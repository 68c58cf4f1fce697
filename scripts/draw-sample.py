#!/usr/bin/env python3
"""Draw a reproducible random sample of findings for a precision study.

Each precision claim in docs/ rests on findings drawn at random from
lockstep's JSON reports and read against the source. This script makes the
draw repeatable: the population is every finding of the given rule (and
confidence, if asked) in the given reports, sorted by (program, rule,
class, method, file, line, message) so that file order and thread count do
not matter; the sample is `random.Random(seed).sample(population, n)`.

Usage:
  scripts/draw-sample.py --rule data-race --seed 20261126 --n 30 \
      h2=out/h2.json jgroups=out/jgroups.json [--confidence high]

Prints a Markdown table with an empty verdict column to fill in, and the
population size per program on stderr. With `--json-out FILE`, also writes
the drawn findings' whole records (paths, related accesses, threads) as a
JSON list in table order, for whoever reads them against the source.
Standard library only.
"""

import argparse
import json
import random
import sys


def load(spec):
    """`name=path` or a bare path (the name is then the file's stem)."""
    name, sep, path = spec.partition("=")
    if not sep:
        path = name
        name = path.rsplit("/", 1)[-1].split(".", 1)[0]
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"draw-sample: cannot read the report {path}: {e}")
    findings = report.get("findings")
    if not isinstance(findings, list):
        sys.exit(f"draw-sample: {path} is not a lockstep JSON report (no findings list)")
    return name, findings


def key(program, f):
    return (
        program,
        f.get("rule") or "",
        f.get("class") or "",
        f.get("method") or "",
        f.get("file") or "",
        f.get("line") or 0,
        f.get("message") or "",
    )


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rule", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--confidence", help="only findings of this confidence")
    ap.add_argument("--json-out", help="also write the drawn findings' records here")
    ap.add_argument("reports", nargs="+", help="name=report.json")
    args = ap.parse_args()

    population = []
    for spec in args.reports:
        program, findings = load(spec)
        chosen = [
            f
            for f in findings
            if f.get("rule") == args.rule
            and (args.confidence is None or f.get("confidence") == args.confidence)
        ]
        print(f"{program}: {len(chosen)} findings", file=sys.stderr)
        population.extend((program, f) for f in chosen)
    population.sort(key=lambda pf: key(*pf))
    n = min(args.n, len(population))
    print(f"population: {len(population)}, drawn: {n}", file=sys.stderr)
    sample = random.Random(args.seed).sample(population, n)

    if args.json_out:
        records = [dict(f, program=program) for program, f in sample]
        try:
            with open(args.json_out, "w", encoding="utf-8") as out:
                json.dump(records, out, indent=1, sort_keys=True)
                out.write("\n")
        except OSError as e:
            sys.exit(f"draw-sample: cannot write {args.json_out}: {e}")

    print("| # | program | where | message | confidence | verdict | why |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for i, (program, f) in enumerate(sample, 1):
        where = f"`{f.get('class')}.{f.get('method')}` ({f.get('file')}:{f.get('line')})"
        print(
            f"| {i} | {program} | {cell(where)} | {cell(f.get('message', ''))} "
            f"| {f.get('confidence', '')} | | |"
        )


if __name__ == "__main__":
    main()
