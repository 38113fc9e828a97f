"""Read an inspect_ai log of the ALIAS task (``.eval`` or ``.json``) as ALIAS records.

The ALIAS task (``inspect eval alias_bench/tla_cir``) stores the benchmark's run header in
the eval's metadata and each sample's full case record in its score's metadata. This reader
turns a log back into a header line and case records, so every report section comes out of
an inspect run as out of a benchmark run. A sample without an ALIAS score (it failed in
inspect before or while scoring) becomes a case record with ``infra_error`` set: it stays in
the denominator. inspect_ai is imported only when a log is read (the ``inspect`` extra).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reports.results_file import INSPECT_SUFFIXES, ResultsWriter
from reports.schema import GRADES

HEADER_KEY = "alias_header"
"""Key of the eval metadata holding the run header (the model fields name a placeholder)."""
SETTINGS_KEY = "alias_settings"
EXCLUDED_KEY = "alias_excluded"
RECORD_KEY = "alias_record"
"""Key of a score's metadata holding the sample's case record."""
GRADE_KEYS = GRADES
_SKIPPED_FIELDS = {"messages", "events", "store", "attachments"}


def is_inspect_log(path: str | os.PathLike[str]) -> bool:
    """Whether a results path names an inspect log (by its suffix)."""
    return Path(path).suffix.lower() in INSPECT_SUFFIXES


def _error(message: str) -> Exception:
    from reports.records import StatsError

    return StatsError(message)


def _read(path: Path) -> Any:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError as exc:
        raise _error(f"{path}: reading inspect logs needs inspect_ai "
                     "(pip install 'alias-bench[inspect]')") from exc
    try:
        try:
            return read_eval_log(str(path), exclude_fields=_SKIPPED_FIELDS)
        except TypeError:  # an inspect_ai without exclude_fields
            return read_eval_log(str(path))
    except (OSError, ValueError) as exc:
        raise _error(f"{path}: not a readable inspect log ({type(exc).__name__}: {exc})"
                     ) from exc


def inspect_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The run header and the case records of an ALIAS inspect log, in sample order.

    Raises :class:`reports.records.StatsError` for a log that inspect_ai cannot read, a log
    of another task, or a log without samples.
    """
    path = Path(path)
    log = _read(path)
    metadata = log.eval.metadata or {}
    if HEADER_KEY not in metadata:
        raise _error(f"{path}: not a log of the ALIAS task (no {HEADER_KEY!r} in the eval "
                     f"metadata; task {log.eval.task!r})")
    if log.samples is None:
        raise _error(f"{path}: the log holds no samples (status {log.status})")
    model = str(log.eval.model)
    records = [_header(log, path, metadata[HEADER_KEY], model)]
    for sample in sorted(log.samples, key=lambda s: (str(s.id), s.epoch)):
        records.append(_case(sample, model, path))
    return records


def _header(log: Any, path: Path, stored: Mapping[str, Any], model: str) -> dict[str, Any]:
    header = dict(stored)
    header.update(model=model, provider="inspect", model_id=model)
    if log.eval.config.epochs is not None:
        header["samples"] = log.eval.config.epochs
    config = log.eval.model_generate_config
    params = dict(header.get("params") or {})
    for name in ("temperature", "top_p", "max_tokens", "seed"):
        value = getattr(config, name, None)
        if value is not None:
            params[name] = value
    header["params"] = params
    header["inspect"] = {"log": path.name, "eval_id": log.eval.eval_id, "task": log.eval.task,
                         "status": log.status, "created": log.eval.created,
                         "version": log.eval.packages.get("inspect_ai"),
                         "excluded": (log.eval.metadata or {}).get(EXCLUDED_KEY, [])}
    return header


def _case(sample: Any, model: str, path: Path) -> dict[str, Any]:
    for score in (sample.scores or {}).values():
        if score.metadata and isinstance(score.metadata.get(RECORD_KEY), Mapping):
            return dict(score.metadata[RECORD_KEY])
    metadata = sample.metadata or {}
    if "task" not in metadata or "condition" not in metadata:
        raise _error(f"{path}: sample {sample.id} has neither an ALIAS score nor the "
                     "task and condition in its metadata")
    why = sample.error.message if sample.error is not None else "the sample has no ALIAS score"
    number = sample.epoch - 1
    return {"schema_version": 1, "kind": "case",
            "id": f"{metadata['task']}/{metadata['condition']}/s{number}", "model": model,
            "task": metadata["task"], "condition": metadata["condition"], "sample": number,
            "hidden_names": list(metadata.get("hidden_names") or []), "grades": {},
            "infra_error": f"inspect: {why}"}


def write_records(log_path: str | os.PathLike[str], out_path: Path) -> Path:
    """Write an inspect log's records as an ALIAS results file (JSONL); return its path."""
    records = inspect_records(log_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.unlink(missing_ok=True)
    writer = ResultsWriter(out_path)
    for record in records:
        writer.append(record)
    return out_path
