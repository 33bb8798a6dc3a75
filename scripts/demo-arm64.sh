#!/bin/bash
# make demo-arm64: the end-to-end story on the arm64 board. QEMU's `virt`
# board (Cortex-A class CPU under TCG, GICv3 with ITS, PCIe through the
# generic ECAM host bridge) with two tilecopy engines, Debian's arm64 6.12
# kernel, tilecopy.ko cross-built for it, and the SDK's CLI cross-built:
# info, conversions on the engines checked against NEON (the guest's
# native CPU path) and the scalar reference, throughput.
set -euo pipefail
cd "$(dirname "$0")/.."
B=$PWD/build
say() { printf '\n== %s\n' "$*"; }

say "the module, cross-built for Debian's arm64 kernel"
modinfo "$B/arm64/driver/tilecopy.ko" | grep -E '^(filename|vermagic|depends):'
say "booting the arm64 board (qemu-system-aarch64 virt + 2 engines + Linux 6.12 arm64 + tilecopy.ko)"
TC_REQUIRE_DEVICE=1 bash tests/qemu/run-guest.sh --arch arm64 --devices 2 --timeout 900 -- \
	env TC_DEMO_REF_CPUS="neon scalar" sh scripts/demo-guest.sh "$B/arm64"
say "arm64 demo passed"
