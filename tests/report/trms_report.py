"""trms_report.py - what the report tests share: a hand-written profile
put in a file, `trms report` run on one with some options (its standard
output returned, a failure handed to the test's own fail()), and a
profile made version 1 (its tuples without the correction's fields)."""
import subprocess


def report(trms, fail, path, *options):
    p = subprocess.run([trms, "report"] + list(options) + [path],
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail("trms report %s %s: status %d: %s"
             % (" ".join(options), path, p.returncode, p.stderr))
    return p.stdout


def write_profile(path, lines, tuples):
    """The profile @lines (without its end line) at @path, ended by the
    end line that counts its @tuples; returns @path."""
    with open(path, "w") as f:
        f.write("\n".join(lines + ["end %d" % tuples]) + "\n")
    return path


def as_version_1(path):
    """@path as a version 1 profile, beside it: its tuples without the
    correction's three fields."""
    out = path.replace(".trms", "-v1.trms")
    with open(path) as f, open(out, "w") as o:
        for i, line in enumerate(f):
            w = line.split()
            if i == 0:
                line = "trms-profile 1\n"
            elif w and w[0] == "tuple":
                line = " ".join(w[:12]) + "\n"
            o.write(line)
    return out
