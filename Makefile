# Convenience targets; CI runs scripts/test.sh directly.
.PHONY: test fuzz-long

test:
	./scripts/test.sh

# Every fuzz target for FUZZ_SECONDS each (default 3 minutes).
FUZZ_SECONDS ?= 180
fuzz-long:
	./scripts/fuzz.sh $(FUZZ_SECONDS)
