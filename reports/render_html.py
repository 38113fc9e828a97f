"""The self-contained HTML page: inline CSS and SVG, no scripts, nothing fetched.

Every text taken from the records goes through :func:`html.escape`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from html import escape
from typing import Any

from reports import section_table as table
from reports.records import condition_order
from reports.render_data import Report, Section
from reports.render_svg import condition_colors, decrease_plot, legend, pass_rate_plots
from reports.render_taxonomy import stage_counts
from reports.render_taxonomy_svg import stacked_bars
from reports.render_turn_svg import turn_plots
from reports.schema import GRADES
from reports.stand_ins import stand_in_note
from reports.taxonomy import class_of

TRACE_STATES = 40
"""States shown of one counterexample; longer traces say how many were left out."""
_CELL_LIMIT = 160

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#222;margin:0 auto;
max-width:1240px;padding:16px 24px 48px}
h1{font-size:24px;margin:8px 0 4px}h2{font-size:19px;margin:30px 0 8px;
border-bottom:1px solid #ddd;padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;margin:6px 0 8px;font-size:13px}
th,td{border:1px solid #d6d6d6;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.pass{background:#e3f3e6}td.fail{background:#fbe5e2}td.infra{background:#fff1c9}
td.none{color:#999}.notes{color:#7a4b00;margin:4px 0;padding-left:20px}
.footer,.muted{color:#666;font-size:12.5px}.footer{margin:4px 0}
nav a{margin-right:12px}code{font:12px ui-monospace,Menlo,Consolas,monospace}
.plots{display:flex;flex-wrap:wrap;gap:18px}.key{margin-right:14px;font-size:12.5px}
.swatch{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px}
details.task{border:1px solid #e2e2e2;border-radius:4px;margin:6px 0;padding:4px 10px}
details.task>summary{cursor:pointer}details.task[open]>summary{margin-bottom:6px}
table.trace td,table.trace th{font:11.5px ui-monospace,Menlo,Consolas,monospace}
table.trace .image{background:#eef3fb}table.trace td.leaves{background:#fbe5e2}
.badge{display:inline-block;padding:0 6px;margin-left:6px;border-radius:8px;
background:#eef;font-size:12px}
.banner{background:#fff1c9;border:1px solid #e0b000;border-radius:4px;padding:8px 12px;
font-weight:600}
"""


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def _note(text: str) -> str:
    """Escaped text with `backticked` spans shown as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _e(text))


def _clip(text: str, limit: int = _CELL_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def section_html(section: Section, *, heading: str = "h2") -> str:
    """A section as heading, table, notes and footer."""
    parts = [f'<{heading} id="{_e(section.key)}">{_e(section.title)}</{heading}>']
    if section.rows:
        head = "".join(f"<th>{_e(c)}</th>" for c in section.columns)
        body = "".join(
            "<tr>" + "".join(f'<td{"" if i < section.labels else " class=num"}>{_e(c)}</td>'
                             for i, c in enumerate(row)) + "</tr>"
            for row in section.rows)
        parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
    if section.notes:
        parts.append('<ul class="notes">' + "".join(f"<li>{_note(n)}</li>" for n in section.notes)
                     + "</ul>")
    if section.rows:
        parts += [f'<p class="footer">{_e(f)}</p>' for f in section.footer]
    return "\n".join(parts)


def page(report: Report) -> str:
    """The whole report as one HTML document: the parts of
    :data:`reports.section_table.PARTS` the report has, in order."""
    s, summary = report.settings, report.summary
    conditions = list(summary["conditions"])
    models = ", ".join(summary["models"]) or "none"
    intro = (f"{len(summary['models'])} model(s) ({models}); {len(summary['tasks'])} task(s); "
             f"conditions {', '.join(conditions) or 'none'}; {summary['cases']} case(s), "
             f"{summary['infra_errors']} infrastructure error(s). Bootstrap: {s.n_boot:,} "
             f"resamples of tasks, seed {s.seed}; exposure split seed {s.split_seed}.")
    parts = [(part, items) for part in table.PARTS
             if (items := _part(report, part, conditions)) is not None]
    note = stand_in_note(summary["models"])
    body = [
        "<h1>ALIAS report</h1>",
        f'<p class="banner" role="alert">{_e(note)}</p>' if note else "",
        f'<p class="muted">{_e(intro)}</p>',
        "<nav>" + "".join(f'<a href="#{_e(p.key)}">{_e(p.nav)}</a>' for p, _ in parts)
        + "</nav>",
        *(item for _, items in parts for item in items),
    ]
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>ALIAS report</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _part(report: Report, part: table.Part, conditions: Sequence[str]) -> list[str] | None:
    """A part's HTML: its one section (an ``h2``) or its title over its sections (``h3``),
    with what the page adds to it (:data:`PAGE_EXTRAS`); None when the report has none of
    its sections."""
    specs = table.sections_of(part.key)
    sections = [found for spec in specs if (found := report.find(spec.key)) is not None]
    if specs and not sections:
        return None
    extra = PAGE_EXTRAS[part.key](report, conditions) if part.key in PAGE_EXTRAS else []
    if part.title is None:
        return [*(section_html(section) for section in sections), *extra]
    return [f'<h2 id="{_e(part.key)}">{_e(part.title)}</h2>', *extra,
            *(SECTION_HTML.get(section.key, section_html)(section, heading="h3")
              for section in sections)]


def _inputs(report: Report, conditions: Sequence[str]) -> list[str]:
    return ["\n".join(f'<p class="muted">{_e(i.path)}: {i.cases} case(s), {len(i.headers)} '
                      f"run header(s)</p>" for i in report.inputs)]


def _probe_inputs(report: Report, conditions: Sequence[str]) -> list[str]:
    return ["\n".join(f'<p class="muted">{_e(i.path)}: '
                      + ", ".join(f"{n} {kind} row(s)" for kind, n in i.rows.items()) + "</p>"
                      for i in report.probes)]


def _plots(report: Report, conditions: Sequence[str]) -> list[str]:
    parts = ['<h2 id="plots">Plots</h2>', "<h3>Pass rates per condition and grade</h3>"]
    rates = report.section("table1").records
    if rates:
        parts.append(f"<p>{legend(condition_colors(conditions))}</p>")
        parts.append('<div class="plots">' + "".join(pass_rate_plots(rates, conditions))
                     + "</div>")
        if any(isinstance(r.get(f"{c}_upper"), float) and r[f"{c}_upper"] > r[c]
               for r in rates for c in conditions):
            parts.append('<p class="muted">The pale top of a behavior bar reaches its upper '
                         "bound: cases whose behavior verdict decides nothing counted as passes "
                         "(Table 1).</p>")
    else:
        parts.append('<p class="notes">No pass rates to plot (see Table 1).</p>')
    parts.append("<h3>Renaming decrease per grade, with 95% interval</h3>")
    differences = report.section("differences").records
    if differences:
        parts.append(decrease_plot(differences, conditions, report.settings.margin))
    else:
        parts.append('<p class="notes">No renaming decrease to plot (see below).</p>')
    return ["\n".join(parts)]


def _turn_plots(report: Report, conditions: Sequence[str]) -> list[str]:
    """The feedback track's plot (pass rate by turn), before its sections."""
    rates = found.records if (found := report.find("turn_rates")) is not None else ()
    plots = turn_plots(rates, conditions)
    if not plots:
        return []
    return ["<h3>Pass rate by turn, with 95% interval</h3>",
            f"<p>{legend(condition_colors(conditions))}</p>",
            '<div class="plots">' + "".join(plots) + "</div>"]


def _tasks(report: Report, conditions: Sequence[str]) -> list[str]:
    return [_drilldown(report.cases, conditions)]


def taxonomy_svgs(report: Report) -> dict[str, str | None]:
    """Per stage, the taxonomy's stacked bar chart (a bar per model and condition), or None
    when the report has no outputs per class."""
    conditions = list(report.summary["conditions"])
    return {stage: stacked_bars(stage, counts, conditions)
            if (found := report.find(f"taxonomy_{stage}")) is not None
            and (counts := stage_counts(found.records)) else None for stage in GRADES}


def _taxonomy_plots(report: Report, conditions: Sequence[str]) -> list[str]:
    """The stacked bar charts of :func:`taxonomy_svgs`, before the taxonomy's tables."""
    charts = [svg for svg in taxonomy_svgs(report).values() if svg is not None]
    if not charts:
        return []
    return ['<p class="muted">Every output in exactly one class per stage, read from its '
            "record (verdicts, reason codes, the parse grade's failure class), never from a "
            "message's text; hover a segment for its count. The tables below give the "
            "numbers, the change of each class between conditions and example cases.</p>",
            '<div class="plots">' + "".join(charts) + "</div>"]


PAGE_EXTRAS: dict[str, Callable[[Report, Sequence[str]], list[str]]] = {
    "provenance": _inputs, "plots": _plots, "turns": _turn_plots, "probes": _probe_inputs,
    "taxonomy": _taxonomy_plots, "tasks": _tasks,
}
"""What the page adds to a part besides its sections: after a one-section part's section,
after a titled part's heading."""
def _examples(section: Section, *, heading: str = "h3") -> str:
    """The taxonomy's example cases, each linked to its task in the drill-down
    (``#task-TASK``), what shows its class with `backticked` spans as code."""
    parts = [f'<{heading} id="{_e(section.key)}">{_e(section.title)}</{heading}>']
    if section.records:
        head = "".join(f"<th>{_e(c)}</th>" for c in section.columns)
        body = "".join(
            f"<tr><td>{_e(r['stage'])}</td><td>{_e(class_of(str(r['stage']), str(r['class'])).label)}"
            f"</td><td>{_e(r['model'])}</td><td><a href=\"#task-{_e(r['task'])}\"><code>"
            f"{_e(r['id'])}</code></a></td><td>{_note(str(r['evidence']))}</td></tr>"
            for r in section.records)
        parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        parts += [f'<p class="footer">{_e(f)}</p>' for f in section.footer]
    if section.notes:
        parts.append('<ul class="notes">' + "".join(f"<li>{_note(n)}</li>" for n in section.notes)
                     + "</ul>")
    return "\n".join(parts)


SECTION_HTML: dict[str, Callable[..., str]] = {"taxonomy_examples": _examples}
"""Sections the page shows otherwise than as a plain table (their cases linked)."""


# -- per-task drill-down ----------------------------------------------------------------------

def _drilldown(cases: Sequence[Mapping[str, Any]], conditions: Sequence[str]) -> str:
    by_task: dict[str, list[Mapping[str, Any]]] = {}
    for case in cases:
        by_task.setdefault(str(case.get("task")), []).append(case)
    order = {c: i for i, c in enumerate(condition_order([*conditions, *(
        str(c.get("condition")) for c in cases)]))}
    parts = ['<h2 id="tasks">Per-task drill-down</h2>',
             f'<p class="muted">{len(by_task)} task(s). Open a task to see every sample\'s '
             "verdicts, the hidden names per condition, and counterexamples of behavior "
             "failures.</p>"]
    colors = condition_colors(list(order))
    for task in sorted(by_task):
        rows = sorted(by_task[task], key=lambda c: (str(c.get("model")),
                                                    order[str(c.get("condition"))],
                                                    int(c.get("sample") or 0)))
        parts.append(_task(task, rows, colors))
    return "\n".join(parts)


def _task(task: str, cases: Sequence[Mapping[str, Any]], colors: Mapping[str, str]) -> str:
    models = {str(c.get("model")) for c in cases}
    hidden: dict[str, list[str]] = {}
    tallies: dict[tuple[str, str], list[int]] = {}
    for case in cases:
        cond = str(case.get("condition"))
        names = hidden.setdefault(cond, [])
        names += [n for n in case.get("hidden_names") or [] if n not in names]
        tally = tallies.setdefault((str(case.get("model")), cond), [0, 0, 0])
        tally[0] += 1
        tally[1] += bool(_passed(case, "name"))
        tally[2] += bool(_passed(case, "behavior"))
    badges = "".join(
        f'<span class="badge" style="border-left:4px solid {colors.get(cond, "#999")}">'
        f'{_e(f"{model} " if len(models) > 1 else "")}{_e(cond)}: name {n}/{total}, '
        f"behavior {b}/{total}</span>" for (model, cond), (total, n, b) in tallies.items())
    n_hidden = max((len(v) for v in hidden.values()), default=0)
    hidden_html = "; ".join(f"{_e(c)}: <code>{_e(', '.join(v))}</code>" if v else
                            f"{_e(c)}: none" for c, v in hidden.items())
    head = "".join(f"<th>{h}</th>" for h in
                   ("model", "condition", "sample", *GRADES, "details"))
    body = "".join(_case_row(c) for c in cases)
    return (f'<details class="task" id="task-{_e(task)}"><summary><code>{_e(task)}</code>'
            f' <span class="muted">{n_hidden} hidden name(s)</span>{badges}</summary>'
            f'<p class="muted">Hidden names — {hidden_html}</p>'
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></details>")


def _grades(case: Mapping[str, Any]) -> Mapping[str, Any]:
    grades = case.get("grades")
    return grades if isinstance(grades, Mapping) else {}


def _passed(case: Mapping[str, Any], grade: str) -> bool:
    detail = _grades(case).get(grade)
    return (case.get("infra_error") is None and not case.get("cheats")
            and isinstance(detail, Mapping) and detail.get("passed") is True)


def _case_row(case: Mapping[str, Any]) -> str:
    infra = case.get("infra_error")
    cells = [_e(case.get("model")), _e(case.get("condition")), _e(case.get("sample"))]
    for grade in GRADES:
        detail = _grades(case).get(grade)
        if infra is not None:
            cells.append('<td class="infra">infra</td>')
        elif not isinstance(detail, Mapping):
            cells.append('<td class="none">–</td>')
        else:
            kind = "pass" if detail.get("passed") is True else "fail"
            sound = (f'<br><span class="muted">{_e(detail["soundness"])}</span>'
                     if detail.get("soundness") else "")
            cells.append(f'<td class="{kind}">{_e(detail.get("verdict", "?"))}{sound}</td>')
    info = []
    if infra is not None:
        text = infra if isinstance(infra, str) else json.dumps(infra, sort_keys=True)
        info.append(f"infrastructure error: {_e(_clip(text, 400))}")
    info += _cheats_and_turns(case)
    info += _failure_details(case)
    info += _constants(_grades(case).get("behavior"))
    row = "".join(c if c.startswith("<td") else f"<td>{c}</td>" for c in cells)
    return f"<tr>{row}<td>{'<br>'.join(info)}</td></tr>"


def _cheats_and_turns(case: Mapping[str, Any]) -> list[str]:
    """The cheat findings (the case then passes nothing) and, on the feedback track, how each
    turn ended."""
    out = []
    cheats = case.get("cheats")
    if isinstance(cheats, list) and cheats:
        out.append("cheat (never a pass): " + _e(_clip("; ".join(
            f"{c.get('rule')}: {c.get('detail', '')}" for c in cheats if isinstance(c, Mapping)),
            300)))
    turns = case.get("turns")
    if isinstance(turns, list):
        ends = []
        for turn in turns:
            if not isinstance(turn, Mapping):
                continue
            end = ("infrastructure error" if turn.get("infra_error") else "passed"
                   if turn.get("passed") else str(turn.get("reason") or "failed"))
            feedback = turn.get("feedback")
            levels = feedback.get("levels") if isinstance(feedback, Mapping) else None
            said = (f" → feedback {', '.join(map(str, levels)) or 'none'}"
                    if isinstance(levels, list) else "")
            ends.append(f"turn {turn.get('turn')}: {_clip(end, 160)}{said}")
        out.append(f'<span class="muted">{len(turns)} of {_e(case.get("turns_max"))} turn(s): '
                   f'{_e("; ".join(ends))}</span>')
    return out


def _constants(behavior: Any) -> list[str]:
    """The behavior grade's constants: each one's value and where the value came from."""
    constants = behavior.get("constants") if isinstance(behavior, Mapping) else None
    if not isinstance(constants, Mapping) or not constants:
        return []
    shown = [f"<code>{_e(name)}</code> = {_e(_clip(str(c.get('value')), 40))} "
             f"({_e(c.get('source'))})" for name, c in constants.items()
             if isinstance(c, Mapping)]
    return ['<span class="muted">constants: ' + ", ".join(shown) + "</span>"]


def _failure_details(case: Mapping[str, Any]) -> list[str]:
    grades, out = _grades(case), []
    parse = grades.get("parse")
    if isinstance(parse, Mapping) and parse.get("passed") is False:
        reason = str(parse.get("reason") or "")
        return [f"parse: {_e(_clip(reason, 300))}"] if reason else []
    name = grades.get("name")
    if isinstance(name, Mapping) and name.get("passed") is False:
        missing = [str(n) for n in name.get("missing_names") or []]
        hidden = set(map(str, case.get("hidden_names") or []))
        if missing:
            out.append("name: missing " + ", ".join(
                f"<code>{_e(n)}</code>{' (hidden)' if n in hidden else ''}" for n in missing))
        elif name.get("reason"):
            out.append(f"name: {_e(_clip(str(name['reason'])))}")
    behavior = grades.get("behavior")
    if isinstance(behavior, Mapping) and behavior.get("passed") is False:
        if behavior.get("reason"):
            out.append(f"behavior: {_e(_clip(str(behavior['reason']), 300))}")
        trace = behavior.get("trace")
        if isinstance(trace, list) and trace:
            out.append(_trace(trace, behavior.get("mapping"), behavior.get("trace_of"),
                              behavior.get("reference_image")))
        if behavior.get("engine") == "graphs" and behavior.get("output_states"):
            out.append(f'<span class="muted">graph engine: output {behavior["output_states"]} '
                       f'states, reference {behavior.get("reference_states")}, '
                       f'{behavior.get("tlc_runs")} TLC run(s)</span>')
    return out


def _trace(trace: Sequence[Any], mapping: Any, whose: Any = None, image: Any = None) -> str:
    """A counterexample's states as a table; for a behavior of the output with its
    `reference_image`, the reference state each one maps to in columns of their own."""
    states = [s for s in trace if isinstance(s, Mapping)]
    names = _variable_names(states)
    aligned = isinstance(image, list) and len(image) == len(trace) == len(states)
    images = list(image) if aligned else None
    ref_names = _variable_names(images or [])
    head = "<th>#</th><th>action</th>" + "".join(f"<th>{_e(n)}</th>" for n in names)
    if images is not None:
        head += '<th class="image">maps to</th>' + "".join(
            f'<th class="image">{_e(n)}</th>' for n in ref_names)
    rows = []
    for n_state, state in enumerate(states[:TRACE_STATES]):
        variables = state.get("variables")
        values = variables if isinstance(variables, Mapping) else {}
        rows.append(f"<tr><td>{_e(state.get('number', ''))}</td>"
                    f"<td>{_e(_clip(str(state.get('action', '')), 80))}</td>"
                    + "".join(f"<td>{_e(_clip(str(values.get(n, ''))))}</td>" for n in names)
                    + (_image_cells(images[n_state], ref_names) if images is not None else "")
                    + "</tr>")
    more = (f'<p class="muted">… {len(states) - TRACE_STATES} more state(s) not shown</p>'
            if len(states) > TRACE_STATES else "")
    if images is not None:
        more += ('<p class="muted">shaded: the reference state each output state maps to, and '
                 'how it follows the one before (red: where the image leaves the reference)</p>')
    used = ""
    if isinstance(mapping, Mapping):
        parts = [f"{label}: " + ", ".join(f"{k} ↦ {v}" for k, v in part.items())
                 for key, label in (("variables", "variables (reference ↦ output)"),
                                    ("constants", "constants (output ↦ reference)"))
                 if isinstance(part := mapping.get(key), Mapping) and part]
        if parts:
            used = f'<p class="muted">mapping: {_e("; ".join(parts))}</p>'
    of = {"output": ", a behavior of the output whose image leaves the reference",
          "reference": ", a behavior of the reference the output cannot follow"}.get(str(whose), "")
    return (f"<details><summary>counterexample ({len(states)} state(s){of})</summary>{used}"
            f'<table class="trace"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}'
            f"</tbody></table>{more}</details>")


#: how a witness state's reference image follows the one before, as the page shows it
_IMAGE_STEPS = {"initial": "initial", "not_initial": "not initial", "step": "step",
                "stutter": "stutter", "no_step": "no reference step"}


def _variable_names(states: Sequence[Any]) -> list[str]:
    names: dict[str, None] = {}
    for state in states:
        variables = state.get("variables") if isinstance(state, Mapping) else None
        if isinstance(variables, Mapping):
            names.update(dict.fromkeys(map(str, variables)))
    return list(names)


def _image_cells(state: Any, ref_names: Sequence[str]) -> str:
    """One output state's reference image: how it follows the one before, then its values;
    a state with no image, or one that leaves the reference, is marked."""
    variables = state.get("variables") if isinstance(state, Mapping) else None
    if not isinstance(variables, Mapping):
        return ('<td class="image leaves">no reference state</td>'
                + '<td class="image"></td>' * len(ref_names))
    step = str(state.get("step", ""))
    leaves = " leaves" if step in ("not_initial", "no_step") else ""
    return (f'<td class="image{leaves}">{_e(_IMAGE_STEPS.get(step, step))}</td>'
            + "".join(f'<td class="image">{_e(_clip(str(variables.get(n, ""))))}</td>'
                      for n in ref_names))
