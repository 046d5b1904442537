"""Writes one appliance-check run's timings into docs/appliance.md: the row of
that architecture in the timings table is replaced (or added)."""

import sys
from pathlib import Path

doc, arch, row = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
lines = doc.read_text(encoding="utf-8").splitlines()
start = lines.index("<!-- timings -->")
end = lines.index("<!-- /timings -->")
table = [ln for ln in lines[start + 1 : end] if f"ARCH={arch}`" not in ln]
table.append(row)
doc.write_text("\n".join(lines[: start + 1] + table + lines[end:]) + "\n", encoding="utf-8")
