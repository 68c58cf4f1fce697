#!/usr/bin/env python3
"""Check that every known true finding is still reported.

The list is docs/known-findings.tsv: every finding a classified sample in
docs/*-sample*.md judged real, benign or harmful, named by structure
(program, rule, class, method, and the field, lock or line that tells it
apart) rather than by message or fingerprint, which change with wording.
This script reads one JSON report per program and says, per rule, which
known findings are found, missing, or not checked (no report for that
program: never counted as found). Rows marked `lost` are findings that
were judged true but that lockstep no longer reports; they are listed,
not counted as missing (see docs/known-findings.md).

Usage:
  scripts/check-known-findings.py REPORT_DIR          # REPORT_DIR/<program>.json
  scripts/check-known-findings.py --run OUT_DIR       # runs lockstep first
      [--lockstep target/release/lockstep] [--programs h2,jgroups]
  scripts/check-known-findings.py --list docs/known-findings.tsv ...

Exit status: 0 when no checked known finding is missing, 1 when one is,
2 on a usage error or a missing/malformed list or report. Standard
library only.
"""

import argparse
import json
import os
import subprocess
import sys

JAVA = "/usr/share/java/"

# How each program of the list is checked: its jars, class path, mode and
# rules. The six jars of the reference outputs are run closed with every
# rule and no class path (BENCHMARKS.md); the others as the sample that
# judged them ran them (docs/deadlock-sample.md), with only the rules
# judged there, to keep the run short.
TOMCAT_CP = [
    "tomcat9-api", "tomcat9-juli", "tomcat9-servlet-api", "tomcat9-annotations-api",
    "tomcat9-el-api", "tomcat9-jaspic-api", "tomcat9-jni", "tomcat9-util-scan",
    "tomcat9-websocket-api", "tomcat9-jsp-api",
]
LOCKS = "deadlock,wait-notify,blocking-under-lock"
PROGRAMS = {
    "commons-pool": (["commons-pool"], [], False, "all"),
    "log4j-1.2": (["log4j-1.2"], [], False, "all"),
    "jfreechart": (["jfreechart"], [], False, "all"),
    "jgroups": (["jgroups"], [], False, "all"),
    "h2": (["h2"], [], False, "all"),
    "hsqldb": (["hsqldb"], [], False, "all"),
    "log4j-1.2-open": (["log4j-1.2"], [], True, "all"),
    "jgroups-open": (["jgroups"], [], True, "all"),
    "h2-open": (["h2"], [], True, "all"),
    "tomcat9": (["tomcat9-catalina", "tomcat9-coyote", "tomcat9-util"], TOMCAT_CP, True, LOCKS),
    "xalan2": (["xalan2"], ["serializer", "xercesImpl"], True, LOCKS),
    "velocity": (["velocity"], ["commons-lang", "commons-collections3"], True, LOCKS),
    "commons-configuration": (
        ["commons-configuration"], ["commons-lang", "commons-logging"], True, LOCKS),
    "findbugs": (["findbugs"], ["bcel", "asm-all"], True, LOCKS),
    "c3p0": (["c3p0"], [], True, LOCKS),
    # The libraries added to the deadlock population in session 24
    # (scripts/deadlock-population.sh), deadlock only.
    "activemq": (["activemq-client", "activemq-broker"],
                 ["geronimo-jms_1.1_spec", "slf4j-api", "hawtbuf"], True, "deadlock"),
    "derbyclient": (["derbyclient"], [], True, "deadlock"),
    "jsch": (["jsch"], [], True, "deadlock"),
}

COLUMNS = ["program", "rule", "class", "method", "line", "field", "lock",
           "verdict", "judged", "status"]
VERDICTS = {"harmful", "benign", "real"}
STATUSES = {"kept", "lost"}
# Rules whose finding is a pair (or cycle) of accesses: which of them is
# the primary location can change with the analysis, so a row's method
# may be at the primary location or at any related one.
PAIR_RULES = {"data-race", "deadlock"}


def fail(msg):
    print(f"check-known-findings: {msg}", file=sys.stderr)
    sys.exit(2)


def read_list(path):
    """The rows of the TSV list; `#` lines are comments."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = [l.rstrip("\n") for l in f]
    except OSError as e:
        fail(f"cannot read the list {path}: {e}")
    rows, header = [], None
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if header is None:
            if cells != COLUMNS:
                fail(f"{path}:{n}: header must be {' '.join(COLUMNS)}")
            header = cells
            continue
        if len(cells) != len(COLUMNS):
            fail(f"{path}:{n}: {len(cells)} columns, expected {len(COLUMNS)}")
        row = dict(zip(COLUMNS, cells))
        if row["verdict"] not in VERDICTS or row["status"] not in STATUSES:
            fail(f"{path}:{n}: verdict must be one of {sorted(VERDICTS)}, "
                 f"status one of {sorted(STATUSES)}")
        if row["program"] not in PROGRAMS:
            fail(f"{path}:{n}: program {row['program']!r} has no command in PROGRAMS "
                 "(scripts/check-known-findings.py)")
        if not row["class"] or not row["method"]:
            fail(f"{path}:{n}: class and method are required")
        if row["line"] and not row["line"].isdigit():
            fail(f"{path}:{n}: line must be a number or empty")
        row["where"] = f"{path}:{n}"
        rows.append(row)
    if header is None:
        fail(f"{path}: no header line")
    return rows


def read_report(path):
    """The findings of one lockstep JSON report."""
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"cannot read the report {path}: {e}")
    findings = report.get("findings") if isinstance(report, dict) else None
    if not isinstance(findings, list) or not all(isinstance(f, dict) for f in findings):
        fail(f"{path} is not a lockstep JSON report (no findings list)")
    return findings


def site_matches(row, loc):
    if loc.get("class") != row["class"] or loc.get("method") != row["method"]:
        return False
    return not row["line"] or loc.get("line") == int(row["line"])


def matches(row, finding):
    """Whether `finding` is the known finding `row` names."""
    if finding.get("rule") != row["rule"]:
        return False
    if row["field"] and finding.get("field") != row["field"]:
        return False
    if row["lock"] and finding.get("lock") != row["lock"]:
        return False
    if site_matches(row, finding):
        return True
    if row["rule"] in PAIR_RULES:
        related = finding.get("related") or []
        return any(isinstance(r, dict) and site_matches(row, r) for r in related)
    return False


def run_lockstep(lockstep, out_dir, programs):
    """Runs lockstep on each program into OUT_DIR/<program>.json."""
    os.makedirs(out_dir, exist_ok=True)
    for name in programs:
        jars, cp, open_mode, select = PROGRAMS[name]
        cmd = [lockstep, "check"] + [f"{JAVA}{j}.jar" for j in jars]
        if cp:
            cmd += ["-cp", ":".join(f"{JAVA}{j}.jar" for j in cp)]
        if open_mode:
            cmd.append("--open")
        cmd += ["--select", select, "--format", "json"]
        print(f"running: {' '.join(cmd)}", file=sys.stderr)
        out = os.path.join(out_dir, f"{name}.json")
        with open(out, "w", encoding="utf-8") as f:
            # lockstep exits 1 when it reports findings: not an error here.
            try:
                rc = subprocess.run(cmd, stdout=f).returncode
            except OSError as e:
                fail(f"cannot run {lockstep}: {e}")
        if rc not in (0, 1):
            fail(f"lockstep exited with {rc} on {name}")


def describe(row):
    what = [f"{row['class']}.{row['method']}"]
    if row["line"]:
        what.append(f"line {row['line']}")
    if row["field"]:
        what.append(f"field {row['field']}")
    if row["lock"]:
        what.append(f"lock {row['lock']}")
    return f"{row['program']}: {', '.join(what)} ({row['verdict']}; {row['judged']})"


def check(rows, report_dir):
    """Per rule: found, missing, not checked, lost. Returns the missing rows."""
    reports = {}
    for program in sorted({r["program"] for r in rows}):
        path = os.path.join(report_dir, f"{program}.json")
        if os.path.exists(path):
            reports[program] = read_report(path)
    tally, missing, lost_found = {}, [], []
    for row in rows:
        t = tally.setdefault(row["rule"], {"found": 0, "missing": 0,
                                           "not checked": 0, "lost": 0})
        findings = reports.get(row["program"])
        if row["status"] == "lost":
            t["lost"] += 1
            if findings is not None and any(matches(row, f) for f in findings):
                lost_found.append(row)
        elif findings is None:
            t["not checked"] += 1
        elif any(matches(row, f) for f in findings):
            t["found"] += 1
        else:
            t["missing"] += 1
            missing.append(row)
    print("rule\tfound\tmissing\tnot checked\tlost")
    for rule in sorted(tally):
        t = tally[rule]
        print(f"{rule}\t{t['found']}\t{t['missing']}\t{t['not checked']}\t{t['lost']}")
    unchecked = sorted({r["program"] for r in rows} - set(reports))
    if unchecked:
        print(f"not checked (no report): {', '.join(unchecked)}")
    for row in missing:
        print(f"MISSING {row['rule']} {describe(row)}")
    for row in lost_found:
        print(f"reported again (marked lost; update the list): {row['rule']} {describe(row)}")
    return missing


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reports", help="directory of <program>.json reports "
                    "(with --run: where to write them)")
    ap.add_argument("--list", default=os.path.join(root, "docs", "known-findings.tsv"))
    ap.add_argument("--run", action="store_true", help="run lockstep on each program first")
    ap.add_argument("--lockstep", default=os.path.join(root, "target", "release", "lockstep"))
    ap.add_argument("--programs", help="comma-separated programs to run (default: all)")
    args = ap.parse_args()
    rows = read_list(args.list)
    if args.run:
        wanted = args.programs.split(",") if args.programs else sorted(
            {r["program"] for r in rows})
        unknown = [p for p in wanted if p not in PROGRAMS]
        if unknown:
            fail(f"no command for program(s) {', '.join(unknown)}")
        run_lockstep(args.lockstep, args.reports, wanted)
    elif not os.path.isdir(args.reports):
        fail(f"{args.reports} is not a directory")
    sys.exit(1 if check(rows, args.reports) else 0)


if __name__ == "__main__":
    main()
