package refworker

import (
	"context"
	"testing"

	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
)

// The worker advertises shm_keep_after_read exactly when its reader keeps
// segments.
func TestAdvertisesKeepAfterRead(t *testing.T) {
	for _, keep := range []bool{false, true} {
		e := start(t, func(o *Options) {
			r, err := shm.NewReader(shm.ReaderOptions{Dir: t.TempDir(), KeepFiles: keep})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			o.Reader = r
		})
		si, err := e.client.GetServerInfo(context.Background(), &schedulerpb.GetServerInfoRequest{})
		if err != nil {
			t.Fatal(err)
		}
		v, present := si.GetSchedulerInfo().GetFields()["shm_keep_after_read"]
		if present != keep || (keep && !v.GetBoolValue()) {
			t.Errorf("keep=%v: shm_keep_after_read present=%v value=%v", keep, present, v)
		}
	}
}
