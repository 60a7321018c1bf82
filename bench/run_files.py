"""What the bench drivers read back from `needle run`: the summary line of a --stats file and
the per-vertex values of a --out file (vertex id -> the rest of its line)."""
import json


def summary(stats_path):
    for line in open(stats_path):
        row = json.loads(line)
        if row["type"] == "summary":
            return row
    raise ValueError(f"{stats_path}: no summary line")


def values(out_path):
    rows = {}
    for line in open(out_path):
        if line.startswith("#") or line.startswith("vertex\t"):
            continue
        k, v = line.rstrip("\n").split("\t", 1)
        rows[k] = v
    return rows
