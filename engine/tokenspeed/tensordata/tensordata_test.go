package tensordata

import (
	"errors"
	"reflect"
	"testing"

	commonpb "github.com/mmgate/mmgate/proto/common"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
)

func TestRoundTrip(t *testing.T) {
	h := &shm.Handle{Name: "mmgate-a", Offset: 4096, NBytes: 24, Owner: "gw"}
	for _, p := range []shm.Payload{{Inline: []byte{1, 2, 3, 4, 5, 6, 7, 8}}, {Shm: h}} {
		td, err := Encode(tensor.Int64, []int{1, 3}, p)
		if err != nil {
			t.Fatal(err)
		}
		w := Wire(td)
		want := shm.Wire{DType: "int64", Shape: []uint32{1, 3}, Kind: shm.InlinePayload, Inline: p.Inline}
		if p.Shm != nil {
			want = shm.Wire{DType: "int64", Shape: []uint32{1, 3}, Kind: shm.ShmPayload, Shm: *h}
		}
		if !reflect.DeepEqual(w, want) {
			t.Errorf("wire %+v, want %+v", w, want)
		}
	}
	if _, err := Encode(tensor.Int64, []int{1 << 33}, shm.Payload{}); !errors.Is(err, tensor.ErrShape) {
		t.Errorf("dimension over uint32: %v", err)
	}
}

func TestWireKinds(t *testing.T) {
	cases := []struct {
		td   *schedulerpb.TensorData
		kind shm.PayloadKind
	}{
		{nil, shm.NoPayload},
		{&schedulerpb.TensorData{Dtype: "int64"}, shm.NoPayload},
		{&schedulerpb.TensorData{Payload: &schedulerpb.TensorData_Shm{}}, shm.NoPayload},
		{&schedulerpb.TensorData{Payload: &schedulerpb.TensorData_Inline{}}, shm.InlinePayload},
		{&schedulerpb.TensorData{Payload: &schedulerpb.TensorData_Remote{Remote: &commonpb.RemoteTensorHandle{Transport: "nixl"}}}, shm.OtherPayload},
	}
	for i, c := range cases {
		if w := Wire(c.td); w.Kind != c.kind {
			t.Errorf("case %d: kind %v, want %v", i, w.Kind, c.kind)
		}
	}
	// The reader refuses a nil tensor and a remote handle.
	r, err := shm.NewReader(shm.ReaderOptions{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, td := range []*schedulerpb.TensorData{nil, cases[4].td} {
		if _, err := (Reader{r}).Read(td); !errors.Is(err, shm.ErrBadHandle) {
			t.Errorf("read %v: %v", td, err)
		}
	}
}
