#!/usr/bin/python3
# SPDX-License-Identifier: BSD-2-Clause
# Reads `uetctl stats --prometheus` output on stdin with
# python3-prometheus-client's parser (an implementation of the format that
# is not ours) and prints each sample as "NAME k=v ... VALUE", labels
# sorted, so that shell tests can grep them. Exits 1, saying why, when it
# does not parse or breaks what uetctl(8) promises: every metric has HELP
# and a counter or gauge TYPE, every name starts uet_, every sample has an
# iface label.
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    text = sys.stdin.read()
    if not text:
        sys.exit("e2e_prom_parse: no input")
    out = []
    try:
        for fam in text_string_to_metric_families(text):
            if fam.type not in ("counter", "gauge"):
                sys.exit(f"e2e_prom_parse: {fam.name}: type {fam.type}")
            if not fam.documentation:
                sys.exit(f"e2e_prom_parse: {fam.name}: no HELP")
            for s in fam.samples:
                if not s.name.startswith("uet_"):
                    sys.exit(f"e2e_prom_parse: {s.name}: not uet_*")
                if "iface" not in s.labels:
                    sys.exit(f"e2e_prom_parse: {s.name}: no iface label")
                if fam.type == "counter" and not s.name.endswith("_total"):
                    sys.exit(f"e2e_prom_parse: {s.name}: counter not _total")
                labels = " ".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
                value = int(s.value) if s.value == int(s.value) else s.value
                out.append(f"{s.name} {labels} {value}")
    except ValueError as e:
        sys.exit(f"e2e_prom_parse: does not parse: {e}")
    print("\n".join(out))


main()
