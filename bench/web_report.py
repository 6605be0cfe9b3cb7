"""Markdown tables of a bench/web.py report (the JSON holds every figure; these show the main ones)."""

from __future__ import annotations

from typing import Any


def _kb(value: float | None) -> str:
    return "–" if value is None else f"{value / 1024:,.0f} KB" if value < 1024 * 1024 else f"{value / 1048576:,.2f} MiB"


def _num(value: Any, suffix: str = "") -> str:
    if value is None:
        return "–"
    return f"{value:,}{suffix}" if isinstance(value, int) else f"{value:,.1f}{suffix}" if isinstance(value, float) else str(value)


def _dom(row: dict[str, Any]) -> str:
    if row["dom_updates"] == 0:
        return "**never** (no update in {})".format("the step timeout")
    text = f"{_num(row['step_dom_p50_ms'])} / {_num(row['step_dom_p95_ms'])} ms ({row['dom_updates']} steps)"
    if row.get("dom_never_from_step"):
        text += f"; **never** from step {row['dom_never_from_step']}"
    return text


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "| cluster | create + start run | first load (HTML; first byte) | socket live | first step → DOM | step → DOM p50 / p95 | server step median (max) "
        "| ws bytes / step | largest ws message | ws opens | web server tracebacks | DB growth / step (frame views) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in report["sizes"]:
        load = row.get("first_load", {})
        lines.append(
            f"| {row['nodes']:,} nodes × {row['pods']:,} pods "
            f"| {row['scenario_create_s']} + {row['run_start_s']} s "
            f"| {_num(load.get('load_s'), ' s')} ({_kb(load.get('html_bytes'))}; "
            f"{_num((load.get('phases_s') or {}).get('ttfb'), ' s')}) "
            f"| {_num(load.get('socket_live_s'), ' s') if load.get('socket_live_s') else '**never**'} "
            f"| {_num((row.get('step_dom_ms') or [None])[0], ' ms')} "
            f"| {_dom(row)} "
            f"| {_num(row['server_step_median_s'], ' s')} ({_num(row['server_step_max_s'], ' s')}; {row['server_steps']} steps) "
            f"| {_kb(row['ws_bytes_per_step'])} | {_kb(row['ws_largest_message_bytes'])} | {row['ws_opened']} "
            f"| {row.get('web_tracebacks', row.get('daphne_tracebacks'))} "
            f"| {_kb(row['db_growth_per_step_bytes'])} ({_kb(row['frame_view_bytes_per_step'])}) |"
        )
    plays = [row for row in report["sizes"] if row.get("play")]
    if plays:
        lines += [
            "",
            "| play at max speed | distinct #run-step values in the samples | longest stall | page from → to "
            "| server head from → to | pause took |",
            "|---|---|---|---|---|---|",
        ]
        for row in plays:
            p = row["play"]
            lines.append(
                f"| {row['nodes']:,} × {row['pods']:,} ({p['samples']} samples / 0.5 s) | {p['distinct_values']} "
                f"| {p['longest_stall_s']} s | {p['first']} → {p['last']} | {p['db_head_first']} → {p['db_head_last']} "
                f"| {p['pause_took_s']} s{'' if p['paused_within_timeout'] else ' (timed out)'} |"
            )
    viewers = report.get("viewers")
    if viewers:
        lines += [
            "",
            "| concurrent viewers | connected | steps delivered | delivery p50 / p95 (max) | fan-out spread p95 "
            "| events once, in order | every event | messages / viewer | largest message |",
            "|---|---|---|---|---|---|---|---|---|",
            f"| {viewers['viewers']} on {viewers['size']} | {viewers.get('connected')} "
            f"| {viewers.get('steps_done')} / {viewers['steps_requested']}{' (timed out)' if viewers.get('timed_out') else ''} "
            f"| {_num(viewers.get('delivery_p50_ms'))} / {_num(viewers.get('delivery_p95_ms'))} "
            f"({_num(viewers.get('delivery_max_ms'))}) ms | {_num(viewers.get('fanout_spread_p95_ms'), ' ms')} "
            f"| {viewers.get('viewers_with_events_once_in_order')} / {viewers['viewers']} "
            f"| {viewers.get('viewers_with_every_event')} / {viewers['viewers']} "
            f"| {viewers.get('messages_per_viewer')} | {_kb(viewers.get('biggest_message_bytes'))} |",
        ]
    return "\n".join(lines) + "\n"


def results_section(report: dict[str, Any], *, heading: str, note: str) -> str:
    args = report["args"]
    text = [
        "",
        f"## {heading} — {report['date']}",
        "",
        f"`python bench/web.py --sizes {args['sizes']} --steps {args['steps']} --repeat {args['repeat']}` "
        f"(step timeout {args['step_timeout']:g} s, phase timeout {args['phase_timeout']:g} s; {report['machine']}).",
    ]
    if note:
        text += ["", note]
    text += ["", markdown(report)]
    return "\n".join(text)
