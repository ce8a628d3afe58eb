package main

import (
	"os"
	"testing"
)

// asMainEnv, when "1" in a test binary's environment, makes the binary run
// as mmgate itself: `bench transport` starts its worker process by
// re-executing its own binary, which in a test is the test binary.
const asMainEnv = "GO_TEST_MMGATE_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}
