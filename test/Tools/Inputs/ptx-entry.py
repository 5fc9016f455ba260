"""Prints the text of one .entry of a PTX file (from its '.entry NAME(' line
to the next entry or the end), for checks and comparisons of one kernel of a
module."""
import sys

path, name = sys.argv[1], sys.argv[2]
text = open(path).read()
start = text.find(".entry " + name + "(")
if start < 0:
    sys.exit("ptx-entry.py: no .entry %s in %s" % (name, path))
end = text.find(".entry ", start + 1)
sys.stdout.write(text[start:end if end >= 0 else len(text)])
