package refworker

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/mmgate/mmgate/engine/tokenspeed/tensordata"
	commonpb "github.com/mmgate/mmgate/proto/common"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tensor"
)

// byteTok is a stand-in tokenizer: one token per byte (id = 1000 + byte);
// ids from 151000 up are special and skipped when asked.
type byteTok struct{}

func (byteTok) Encode(s string) []uint32 {
	out := make([]uint32, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = 1000 + uint32(s[i])
	}
	return out
}

func (byteTok) Decode(ids []uint32, skip bool) string {
	var b []byte
	for _, id := range ids {
		switch {
		case id >= 151000:
			if !skip {
				b = append(b, "<special>"...)
			}
		case id >= 1000 && id < 1256:
			b = append(b, byte(id-1000))
		}
	}
	return string(b)
}

type env struct {
	client schedulerpb.TokenSpeedSchedulerClient
	srv    *Server
	pool   *shm.Pool
	dir    string
}

func start(t *testing.T, mod func(*Options)) *env {
	t.Helper()
	e, conn := serve(t, mod)
	e.client = schedulerpb.NewTokenSpeedSchedulerClient(conn)
	return e
}

// serve runs a worker with the options mod sets and returns it with a
// client connection.
func serve(t *testing.T, mod func(*Options)) (*env, *grpc.ClientConn) {
	t.Helper()
	dir := t.TempDir()
	reader, err := shm.NewReader(shm.ReaderOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reader.Close() })
	o := Options{ModelDir: "testdata/qwen3-vl", Tokenizer: byteTok{}, Reader: reader}
	if mod != nil {
		mod(&o)
	}
	srv, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer(grpc.MaxRecvMsgSize(256 << 20))
	srv.Register(g)
	go g.Serve(lis)
	t.Cleanup(g.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	pool, err := shm.New(shm.Options{Dir: dir, Budget: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return &env{srv: srv, pool: pool, dir: dir}, conn
}

// result collects one Generate call.
type result struct {
	chunks   map[uint32][]uint32
	complete map[uint32]*schedulerpb.GenerateComplete
}

var tok byteTok

func (e *env) generate(t *testing.T, req *schedulerpb.GenerateRequest) (*result, error) {
	t.Helper()
	st, err := e.client.Generate(context.Background(), req)
	if err != nil {
		return nil, err
	}
	r := &result{chunks: map[uint32][]uint32{}, complete: map[uint32]*schedulerpb.GenerateComplete{}}
	return r, drain(st, func(resp *schedulerpb.GenerateResponse) {
		if c := resp.GetChunk(); c != nil {
			r.chunks[c.GetIndex()] = append(r.chunks[c.GetIndex()], c.GetTokenIds()...)
		}
		if c := resp.GetComplete(); c != nil {
			r.complete[c.GetIndex()] = c
		}
	})
}

// drain reads a stream to its end, passing each message to each.
func drain[R any](st grpc.ServerStreamingClient[R], each func(*R)) error {
	for {
		r, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		each(r)
	}
}

// imageItem builds an IMAGE item with a grid of 1×gh×gw and float rows of
// 1536 values, placed at offset in a prompt of pad tokens, travelling by path.
func (e *env) imageItem(t *testing.T, gh, gw int, dt tensor.DType, mode shm.Mode, fill byte) (*schedulerpb.MultimodalItem, []byte) {
	t.Helper()
	rows := gh * gw
	b := e.pool.NewBatch(context.Background(), "t")
	buf, err := b.Place(shm.Route{Mode: mode, NamespaceMatch: true}, rows*1536*dt.Size(), "image")
	if err != nil {
		t.Fatal(err)
	}
	for i := range buf.Bytes() {
		buf.Bytes()[i] = fill + byte(i%251)
	}
	want := append([]byte(nil), buf.Bytes()...)
	td, err := tensordata.Seal(buf, dt, []int{rows, 1536})
	if err != nil {
		t.Fatal(err)
	}
	b.Commit()
	grid := make([]byte, 24)
	binary.LittleEndian.PutUint64(grid[0:], 1)
	binary.LittleEndian.PutUint64(grid[8:], uint64(gh))
	binary.LittleEndian.PutUint64(grid[16:], uint64(gw))
	pad := uint32(151655)
	return &schedulerpb.MultimodalItem{
		Modality:     commonpb.Modality_IMAGE,
		EncoderInput: td,
		ModelSpecificTensors: map[string]*schedulerpb.TensorData{
			"image_grid_thw": {Shape: []uint32{1, 3}, Dtype: "int64", Payload: &schedulerpb.TensorData_Inline{Inline: grid}},
		},
		PlaceholderTokenId: &pad,
	}, want
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func promptWith(pads ...int) ([]uint32, []*schedulerpb.PlaceholderRange) {
	ids := []uint32{151644, 872, 198}
	var r []*schedulerpb.PlaceholderRange
	for _, n := range pads {
		ids = append(ids, 151652)
		r = append(r, &schedulerpb.PlaceholderRange{Offset: uint32(len(ids)), Length: uint32(n)})
		for k := 0; k < n; k++ {
			ids = append(ids, 151655)
		}
		ids = append(ids, 151653)
	}
	return append(ids, 151645), r
}

func TestGenerateDescribesImages(t *testing.T) {
	e := start(t, nil)
	ids, ranges := promptWith(6, 1)
	for _, stream := range []bool{true, false} {
		it1, b1 := e.imageItem(t, 4, 6, tensor.BFloat16, shm.ModeShm, 1)
		it2, b2 := e.imageItem(t, 2, 2, tensor.Float32, shm.ModeInline, 7)
		it1.Placeholders = ranges[:1]
		it2.Placeholders = ranges[1:]
		req := &schedulerpb.GenerateRequest{
			RequestId: "r1", Stream: stream,
			Tokenized: &schedulerpb.TokenizedInput{InputIds: ids},
			MmInputs:  &schedulerpb.MultimodalInputs{Items: []*schedulerpb.MultimodalItem{it1, it2}},
		}
		res, err := e.generate(t, req)
		if err != nil {
			t.Fatalf("stream=%v: %v", stream, err)
		}
		c := res.complete[0]
		if c.GetFinishReason() != "stop" || c.GetMatchedTokenId() != 151645 {
			t.Errorf("finish %q matched %d", c.GetFinishReason(), c.GetMatchedTokenId())
		}
		text := tok.Decode(c.GetOutputIds(), true)
		if stream {
			if got := tok.Decode(res.chunks[0], true); got != text {
				t.Errorf("chunks %q != complete %q", got, text)
			}
		} else if len(res.chunks) != 0 {
			t.Errorf("non-stream sent chunks")
		}
		for _, want := range []string{
			"image 1: grid 1x4x6, bfloat16 via shm, sha256 " + sha(b1) + "\n",
			"image 2: grid 1x2x2, float32 via inline, sha256 " + sha(b2) + "\n",
			"prompt: " + strconv.Itoa(len(ids)) + " tokens, sha256 " + sha(idsBytes(ids)),
		} {
			if !strings.Contains(text, want) {
				t.Errorf("reply lacks %q:\n%s", want, text)
			}
		}
		if int(c.GetPromptTokens()) != len(ids) || int(c.GetCompletionTokens()) != len(c.GetOutputIds()) {
			t.Errorf("usage %d/%d", c.GetPromptTokens(), c.GetCompletionTokens())
		}
	}
	if left, _ := os.ReadDir(e.dir); len(left) != 0 {
		t.Errorf("segments left behind: %v", left)
	}
}

func TestGenerateRefusals(t *testing.T) {
	e := start(t, nil)
	cases := []struct {
		name string
		mod  func(it *schedulerpb.MultimodalItem, ids []uint32)
		want string
	}{
		{"no placeholders", func(it *schedulerpb.MultimodalItem, _ []uint32) { it.Placeholders = nil }, "no placeholder"},
		{"range outside", func(it *schedulerpb.MultimodalItem, _ []uint32) { it.Placeholders[0].Offset = 1000 }, "outside"},
		{"zero length", func(it *schedulerpb.MultimodalItem, _ []uint32) { it.Placeholders[0].Length = 0 }, "outside"},
		{"wrong count", func(it *schedulerpb.MultimodalItem, _ []uint32) { it.Placeholders[0].Length = 3 }, "placeholder tokens"},
		{"not pad", func(it *schedulerpb.MultimodalItem, ids []uint32) { ids[5] = 42 }, "not the pad token"},
		{"no grid", func(it *schedulerpb.MultimodalItem, _ []uint32) { delete(it.ModelSpecificTensors, "image_grid_thw") }, "missing image_grid_thw"},
		{"video grid on image", func(it *schedulerpb.MultimodalItem, _ []uint32) {
			it.ModelSpecificTensors["video_grid_thw"] = it.ModelSpecificTensors["image_grid_thw"]
		}, "must not carry"},
		{"bad dtype", func(it *schedulerpb.MultimodalItem, _ []uint32) { it.EncoderInput.Dtype = "int64" }, "encoder_input"},
		{"audio", func(it *schedulerpb.MultimodalItem, _ []uint32) { it.Modality = commonpb.Modality_AUDIO }, "not supported"},
		{"nbytes", func(it *schedulerpb.MultimodalItem, _ []uint32) { it.EncoderInput.GetShm().Nbytes-- }, "encoder_input"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			it, _ := e.imageItem(t, 4, 4, tensor.Float32, shm.ModeShm, 3)
			if it.EncoderInput.GetShm() == nil {
				t.Fatal("test tensor did not go through shm")
			}
			ids, ranges := promptWith(4)
			it.Placeholders = ranges
			c.mod(it, ids)
			_, err := e.generate(t, &schedulerpb.GenerateRequest{
				RequestId: "bad", Tokenized: &schedulerpb.TokenizedInput{InputIds: ids},
				MmInputs: &schedulerpb.MultimodalInputs{Items: []*schedulerpb.MultimodalItem{it}},
			})
			if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want InvalidArgument with %q", err, c.want)
			}
			if left, _ := os.ReadDir(e.dir); len(left) != 0 {
				t.Errorf("segments left behind after refusal: %v", left)
			}
		})
	}
	// Conflicting pad ids between two items of one modality.
	a, _ := e.imageItem(t, 2, 2, tensor.Float32, shm.ModeInline, 1)
	b, _ := e.imageItem(t, 2, 2, tensor.Float32, shm.ModeInline, 1)
	ids, ranges := promptWith(1, 1)
	a.Placeholders, b.Placeholders = ranges[:1], ranges[1:]
	other := uint32(151656)
	b.PlaceholderTokenId = &other
	_, err := e.generate(t, &schedulerpb.GenerateRequest{RequestId: "c", Tokenized: &schedulerpb.TokenizedInput{InputIds: ids},
		MmInputs: &schedulerpb.MultimodalInputs{Items: []*schedulerpb.MultimodalItem{a, b}}})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "conflicts") {
		t.Errorf("conflicting pads: %v", err)
	}
}

func TestSamplingControls(t *testing.T) {
	e := start(t, nil)
	ids := []uint32{1, 2, 3}
	max := uint32(5)
	res, err := e.generate(t, &schedulerpb.GenerateRequest{RequestId: "m", Stream: true, Tokenized: &schedulerpb.TokenizedInput{InputIds: ids},
		SamplingParams: &schedulerpb.SamplingParams{MaxNewTokens: &max, N: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.complete) != 3 {
		t.Fatalf("n=3 gave %d completions", len(res.complete))
	}
	for i := uint32(0); i < 3; i++ {
		c := res.complete[i]
		if c.GetFinishReason() != "length" || len(c.GetOutputIds()) != 5 || len(res.chunks[i]) != 5 {
			t.Errorf("choice %d: %q %d tokens, %d streamed", i, c.GetFinishReason(), len(c.GetOutputIds()), len(res.chunks[i]))
		}
	}
	res, err = e.generate(t, &schedulerpb.GenerateRequest{RequestId: "s", Tokenized: &schedulerpb.TokenizedInput{InputIds: ids},
		SamplingParams: &schedulerpb.SamplingParams{Stop: []string{"tokens,"}}})
	if err != nil {
		t.Fatal(err)
	}
	c := res.complete[0]
	if c.GetFinishReason() != "stop" || c.GetMatchedStopStr() != "tokens," || !strings.HasSuffix(tok.Decode(c.GetOutputIds(), true), "tokens,") {
		t.Errorf("stop string: %q %q %q", c.GetFinishReason(), c.GetMatchedStopStr(), tok.Decode(c.GetOutputIds(), true))
	}
	// ignore_eos keeps going until max_new_tokens.
	max = 300
	res, err = e.generate(t, &schedulerpb.GenerateRequest{RequestId: "i", Tokenized: &schedulerpb.TokenizedInput{InputIds: ids},
		SamplingParams: &schedulerpb.SamplingParams{MaxNewTokens: &max, IgnoreEos: true}})
	if err != nil || res.complete[0].GetFinishReason() != "length" || len(res.complete[0].GetOutputIds()) != 300 {
		t.Errorf("ignore_eos: %v %v", err, res.complete[0])
	}
}

func TestAbort(t *testing.T) {
	e := start(t, func(o *Options) { o.TokenDelay = 20 * time.Millisecond })
	done := make(chan *result, 1)
	go func() {
		res, err := e.generate(t, &schedulerpb.GenerateRequest{RequestId: "a", Stream: true, Tokenized: &schedulerpb.TokenizedInput{InputIds: []uint32{1}}})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	deadline := time.Now().Add(5 * time.Second)
	for e.srv.InFlight() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	loads, _ := e.client.GetLoads(context.Background(), &schedulerpb.GetLoadsRequest{})
	if loads.GetLoads()[0].GetNumRunningReqs() != 1 {
		t.Errorf("loads while running: %v", loads)
	}
	ar, err := e.client.Abort(context.Background(), &schedulerpb.AbortRequest{RequestId: "a"})
	if err != nil || !ar.GetSuccess() {
		t.Fatalf("abort: %v %v", ar, err)
	}
	res := <-done
	if res == nil || res.complete[0].GetFinishReason() != "abort" {
		t.Fatalf("after abort: %+v", res)
	}
	if e.srv.InFlight() != 0 {
		t.Errorf("still in flight")
	}
}

func TestInfoAndBundle(t *testing.T) {
	e := start(t, func(o *Options) { o.ServedModelName = "demo"; o.EncoderDType = "float32"; o.Fingerprint = CRC32C })
	ctx := context.Background()
	mi, err := e.client.GetModelInfo(ctx, &schedulerpb.GetModelInfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if mi.GetServedModelName() != "demo" || mi.GetModelType() != "qwen3_vl" || mi.GetModelDtype() != "bfloat16" ||
		mi.GetMultimodalEncoderDtype() != "float32" || !mi.GetSupportsVision() || mi.GetMaxContextLength() != 262144 ||
		len(mi.GetEosTokenIds()) == 0 || mi.GetEosTokenIds()[0] != 151645 || len(mi.GetSupportedModalities()) != 2 {
		t.Errorf("model info: %v", mi)
	}
	si, err := e.client.GetServerInfo(ctx, &schedulerpb.GetServerInfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	ns := si.GetSchedulerInfo().GetFields()["shm_namespace_id"].GetStringValue()
	if ns == "" || ns != e.pool.NamespaceID() {
		t.Errorf("namespace id %q, pool %q", ns, e.pool.NamespaceID())
	}
	st, err := e.client.GetTokenizer(ctx, &commonpb.GetTokenizerRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var data []byte
	var sum string
	for {
		c, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, c.GetData()...)
		sum = c.GetSha256()
	}
	if sum != sha(data) {
		t.Errorf("bundle sha %q, data %q", sum, sha(data))
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range zr.File {
		names[f.Name] = true
	}
	for _, n := range []string{"config.json", "chat_template.jinja", "preprocessor_config.json", "video_preprocessor_config.json", "tokenizer_config.json"} {
		if !names[n] {
			t.Errorf("bundle lacks %s: %v", n, names)
		}
	}
	h, err := e.client.HealthCheck(ctx, &schedulerpb.HealthCheckRequest{})
	if err != nil || !h.GetHealthy() {
		t.Errorf("health: %v %v", h, err)
	}
}
