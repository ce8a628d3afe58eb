package gateway

import (
	"log/slog"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mmgate/mmgate/shm"
)

// Every option is in the effective configuration under its tag, once;
// secrets are a count, values read as the command line writes them, and
// a fact replaces the option of its key.
func TestEffective(t *testing.T) {
	o := Options{APIKeys: []string{"sekret-a", "sekret-b"}, Shm: ShmOptions{Budget: 1}, Workers: WorkerOptions{Transport: shm.ModeShm, StallTimeout: time.Second},
		Media: MediaOptions{Background: RGB{1, 2, 3}, AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}}
	attrs := Effective(&o, slog.Int64("shm_budget", 7))
	got := map[string]any{}
	for _, a := range attrs {
		if _, dup := got[a.Key]; dup {
			t.Errorf("%s twice", a.Key)
		}
		got[a.Key] = a.Value.Any()
		if strings.Contains(a.Value.String(), "sekret") {
			t.Errorf("a secret is in %s", a.Key)
		}
	}
	var tags func(reflect.Type)
	tags = func(rt reflect.Type) {
		for i := range rt.NumField() {
			f := rt.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("log"), ",")
			switch {
			case tag == "" && f.Type.Kind() == reflect.Struct:
				tags(f.Type)
			case tag == "":
				t.Errorf("%s has no log tag", f.Name)
			case tag != "-":
				if _, ok := got[tag]; !ok {
					t.Errorf("%s (%s) is not in the effective configuration", tag, f.Name)
				}
			}
		}
	}
	tags(reflect.TypeOf(o))
	if got["api_keys"] != int64(2) || got["shm_budget"] != int64(7) || got["rgba_background"] != "1,2,3" || got["mm_transport"] != "shm" ||
		got["worker_stall_timeout"] != time.Second || attrs[0].Key != "shm_budget" {
		t.Errorf("values: %v", attrs)
	}
}
