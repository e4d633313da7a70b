#!/usr/bin/env python3
"""docs/performance.md's tables from the committed `qmatmul bench --json` files under docs/perf/.

usage: perf_page.py DOC.md            (exit 1 naming the first table that differs from its JSON)
       perf_page.py DOC.md --write    (rewrites every table)

A table sits between `<!-- perf FILE.json -->` and `<!-- end perf -->`; FILE.json is read from the
docs/perf/ folder beside DOC.md. scripts/perf-record.sh writes those files (the bench's JSON plus a
"recorded" object: command, date, commit, machine class, load before and after).
"""
import json
import os
import re
import sys

MARK = re.compile(r"<!-- perf (\S+\.json) -->\n(.*?)<!-- end perf -->\n", re.S)


def fmt(x, digits=1):
    return f"{x:.{digits}f}" if x is not None else "-"


def table(path):
    d = json.load(open(path, encoding="utf-8"))
    rec = d.get("recorded", {})
    lim = d.get("limits", {})
    lines = [f"{d['title']}. `{rec.get('command', '?')}`: {rec.get('date', '?')}, commit {rec.get('commit', '?')}, "
             f"{d['machine']['cpu']}, 1-minute load {rec.get('load_before', '?')} before and "
             f"{rec.get('load_after', '?')} after.",
             ""]
    limits = []
    for key, name in (("memory_read", "read"), ("int8_dot", "int8"), ("fp32_fma", "fp32 FMA"), ("amx_int8", "AMX")):
        if key in lim:
            limits.append(f"{name} {lim[key]['limit']:.1f} {lim[key]['unit']} (`{lim[key]['probe']}`)")
    if limits:
        lines += ["Limits measured in the run: " + ", ".join(limits) + ".", ""]
    rows = {}
    order = []
    for r in d["rows"]:
        key = (r["matrix"], r["n"], r["k"])
        if key not in rows:
            rows[key] = {}
            order.append(key)
        rows[key][r["phase"]] = r
    lines += ["| matrix | n x k | kernel | decode µs | GB/s | % of read | % of paired read | prefill ms | rate | % of limit |",
              "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for key in order:
        dec, pre = rows[key].get("decode"), rows[key].get("prefill")
        kern = (dec or pre)["kernel"]
        cells = [key[0], f"{key[1]} x {key[2]}", f"`{kern}`"]
        if dec:
            cells += [fmt(dec["seconds"]["median"] * 1e6), fmt(dec["rate"]), fmt(dec.get("percent_of_limit"), 0),
                      fmt(dec.get("percent_of_paired_read"), 0)]
        else:
            cells += ["-", "-", "-", "-"]
        if pre:
            cells += [fmt(pre["seconds"]["median"] * 1e3, 2), f"{pre['rate']:.0f} {pre['rate_unit']}",
                      fmt(pre.get("percent_of_limit"), 0)]
        else:
            cells += ["-", "-", "-"]
        lines.append("| " + " | ".join(cells) + " |")
    t = d.get("totals", {})
    if t:
        lines += ["", f"Per token of the whole model ({d.get('layers', '?')} layers): decode "
                  f"{fmt(t.get('decode_tokens_per_s'))} tokens/s, prefill of {d.get('m_prefill', '?')} tokens "
                  f"{fmt(t.get('prefill_tokens_per_s'))} tokens/s (matmuls only)."]
    return "\n".join(lines) + "\n"


def main():
    args = sys.argv[1:]
    write = "--write" in args
    doc = [a for a in args if a != "--write"][0]
    folder = os.path.join(os.path.dirname(os.path.abspath(doc)), "perf")
    text = open(doc, encoding="utf-8").read()
    bad = []

    def repl(m):
        want = table(os.path.join(folder, m.group(1)))
        if m.group(2) != want:
            bad.append(m.group(1))
        return f"<!-- perf {m.group(1)} -->\n{want}<!-- end perf -->\n"

    new = MARK.sub(repl, text)
    n = len(MARK.findall(text))
    if write:
        open(doc, "w", encoding="utf-8").write(new)
        print(f"perf_page: {doc}: {n} tables written")
        return 0
    if bad:
        print(f"perf_page: {doc}: the tables of {', '.join(bad)} differ from their JSON "
              f"(regenerate: scripts/perf_page.py {doc} --write)")
        return 1
    print(f"perf_page: {doc}: {n} tables match docs/perf/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
