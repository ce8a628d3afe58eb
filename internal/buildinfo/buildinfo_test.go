package buildinfo

import (
	"runtime"
	"testing"
)

// Describe passes the main package's facts through and adds the
// runtime's and the decoders'.
func TestDescribe(t *testing.T) {
	info := Describe("1.2.3", true)
	if info.Version != "1.2.3" || !info.Cgo || info.Go != runtime.Version() || len(info.Decoders) == 0 {
		t.Errorf("%+v", info)
	}
}
