package proto

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/zeebo/blake3"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	commonpb "github.com/mmgate/mmgate/proto/common"
	"github.com/mmgate/mmgate/proto/prototest"
	schedulerpb "github.com/mmgate/mmgate/proto/scheduler"
	sglangpb "github.com/mmgate/mmgate/proto/sglang"
)

// goldenManifest is testdata/proto_goldens.json, written with the golden
// files by scripts/golden/proto_goldens.py.
type goldenManifest struct {
	Upstream struct {
		Repository string   `json:"repository"`
		Commit     string   `json:"commit"`
		Files      []string `json:"files"`
	} `json:"upstream"`
	Goldens map[string]struct {
		Type      string          `json:"type"`
		Delimited bool            `json:"delimited"`
		Count     int             `json:"count"`
		Sha256    string          `json:"sha256"`
		Facts     json.RawMessage `json:"facts"`
	} `json:"goldens"`
}

// golden decodes testdata/name with our generated type M, checks that
// nothing was left unknown and that encoding the decoded messages again
// (deterministically, size-delimited for streams) gives the file byte for
// byte once fields are in number order, and unmarshals the file's facts from
// the manifest into facts.
//
// The number order is the one point where encoders may differ: upstream's
// Python (C++ runtime) writes every field in number order, protobuf-go
// writes a set oneof member after the other fields. Both are valid
// encodings of the same message; every tag, length and value must still be
// identical.
func golden[M proto.Message](t *testing.T, name string, facts any) []M {
	t.Helper()
	raw, err := os.ReadFile("testdata/proto_goldens.json")
	if err != nil {
		t.Fatal(err)
	}
	var man goldenManifest
	if err := json.Unmarshal(raw, &man); err != nil {
		t.Fatal(err)
	}
	entry, ok := man.Goldens[name]
	if !ok || man.Upstream.Repository != "lightseekorg/smg" || len(man.Upstream.Commit) != 40 {
		t.Fatalf("%s: not in the manifest (or no upstream commit)", name)
	}
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != entry.Sha256 {
		t.Fatalf("%s: sha256 differs from the manifest's", name)
	}
	if facts != nil {
		if err := json.Unmarshal(entry.Facts, facts); err != nil {
			t.Fatalf("%s: facts: %v", name, err)
		}
	}
	var zero M
	if got := string(zero.ProtoReflect().Descriptor().FullName()); got != entry.Type {
		t.Fatalf("%s holds %s, decoded as %s", name, entry.Type, got)
	}
	msgs := decodeAll[M](t, name, data, entry.Delimited)
	if len(msgs) != entry.Count {
		t.Fatalf("%s: %d messages, manifest says %d", name, len(msgs), entry.Count)
	}
	var again []byte
	for _, m := range msgs {
		noUnknown(t, name, m.ProtoReflect())
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		b = numberOrder(t, b, m.ProtoReflect().Descriptor())
		if entry.Delimited {
			again = protowire.AppendVarint(again, uint64(len(b)))
		}
		again = append(again, b...)
	}
	if !bytes.Equal(again, data) {
		t.Fatalf("%s: re-encoding gives %d bytes that differ from the golden's %d", name, len(again), len(data))
	}
	return msgs
}

func decodeAll[M proto.Message](t *testing.T, name string, data []byte, delimited bool) []M {
	t.Helper()
	var zero M
	return prototest.Decode(t, name, data, delimited, func() M { return zero.ProtoReflect().Type().New().Interface().(M) })
}

// numberOrder returns the encoding b of a message of type md with its
// fields stably sorted by number, at every depth (map entries included);
// repeated fields keep their order.
func numberOrder(t *testing.T, b []byte, md protoreflect.MessageDescriptor) []byte {
	t.Helper()
	type field struct {
		num protowire.Number
		raw []byte
	}
	var fields []field
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		m := protowire.ConsumeFieldValue(num, typ, b[max(n, 0):])
		if n < 0 || m < 0 {
			t.Fatalf("%s: malformed encoding", md.FullName())
		}
		raw := b[:n+m]
		if fd := md.Fields().ByNumber(num); fd != nil && typ == protowire.BytesType && fd.Message() != nil {
			inner, _ := protowire.ConsumeBytes(b[n:])
			raw = protowire.AppendTag(nil, num, typ)
			raw = protowire.AppendBytes(raw, numberOrder(t, inner, fd.Message()))
		}
		fields = append(fields, field{num, raw})
		b = b[n+m:]
	}
	sort.SliceStable(fields, func(i, j int) bool { return fields[i].num < fields[j].num })
	var out []byte
	for _, f := range fields {
		out = append(out, f.raw...)
	}
	return out
}

// noUnknown fails on any field our types did not recognise, at any depth.
func noUnknown(t *testing.T, where string, m protoreflect.Message) {
	t.Helper()
	if len(m.GetUnknown()) > 0 {
		t.Errorf("%s: %s carries unknown fields", where, m.Descriptor().FullName())
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, e protoreflect.Value) bool {
					noUnknown(t, where, e.Message())
					return true
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				for i := 0; i < v.List().Len(); i++ {
					noUnknown(t, where, v.List().Get(i).Message())
				}
			}
		case fd.Message() != nil:
			noUnknown(t, where, v.Message())
		}
		return true
	})
}

// expect reports got != want (compared deeply) under the name what.
func expect(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

// values decodes a little-endian tensor payload.
func values[T int64 | float32](t *testing.T, b []byte) []T {
	t.Helper()
	var zero T
	size := binary.Size(zero)
	if len(b)%size != 0 {
		t.Fatalf("%T payload of %d bytes", zero, len(b))
	}
	out := make([]T, len(b)/size)
	if err := binary.Read(bytes.NewReader(b), binary.LittleEndian, out); err != nil {
		t.Fatal(err)
	}
	return out
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func blake3Hex(b []byte) string {
	s := blake3.Sum256(b)
	return hex.EncodeToString(s[:])
}

// flatGrids flattens [[t, h, w], ...] into the int64 layout of a grid tensor.
func flatGrids(grids [][]int64) []int64 {
	var out []int64
	for _, g := range grids {
		out = append(out, g...)
	}
	return out
}

// padRuns returns the (offset, length) of every maximal run of pad in ids.
func padRuns(ids []uint32, pad uint32) [][]uint32 {
	var runs [][]uint32
	for i := 0; i < len(ids); {
		if ids[i] != pad {
			i++
			continue
		}
		j := i
		for j < len(ids) && ids[j] == pad {
			j++
		}
		runs = append(runs, []uint32{uint32(i), uint32(j - i)})
		i = j
	}
	return runs
}

// topLogprobs and outputLogprobs are what the vLLM and SGLang logprob
// messages have in common.
type topLogprobs interface {
	GetValues() []float32
	GetTokenIds() []uint32
}

type outputLogprobs[T topLogprobs] interface {
	GetTokenLogprobs() []float32
	GetTokenIds() []uint32
	GetTopLogprobs() []T
}

// checkLogprobs checks the logprobs of the tokens ids: one entry per token,
// each with top alternatives that lead with the token itself.
func checkLogprobs[T topLogprobs, L outputLogprobs[T]](t *testing.T, lp L, ids []uint32, top int) {
	t.Helper()
	expect(t, "logprob token_ids", lp.GetTokenIds(), ids)
	expect(t, "logprob count", []int{len(lp.GetTokenLogprobs()), len(lp.GetTopLogprobs())}, []int{len(ids), len(ids)})
	for k, alt := range lp.GetTopLogprobs() {
		expect(t, "top_logprobs count", []int{len(alt.GetValues()), len(alt.GetTokenIds())}, []int{top, top})
		expect(t, "top_logprobs lead with the token", []any{alt.GetTokenIds()[0], alt.GetValues()[0]}, []any{ids[k], lp.GetTokenLogprobs()[k]})
	}
}

// TestTokenSpeedGolden decodes a TokenSpeed GenerateRequest that upstream's
// definitions encoded: the TokenSpeed types and the common messages they
// share with vLLM and SGLang read it field for field and write it back
// byte for byte.
func TestTokenSpeedGolden(t *testing.T) {
	var facts struct {
		InputIDs     []uint32   `json:"input_ids"`
		Placeholders [][]uint32 `json:"placeholders"`
		Grid         []int64    `json:"grid"`
		ContentHash  string     `json:"content_hash"`
		ImageSHA256  string     `json:"image_sha256"`
	}
	req := golden[*schedulerpb.GenerateRequest](t, "tokenspeed_generate_image.binpb", &facts)[0]
	expect(t, "request_id", req.GetRequestId(), "chatcmpl-0198c7a0-5b1e-7c3d-9a2f-4e6b8d0c1a23")
	expect(t, "input_ids", req.GetTokenized().GetInputIds(), facts.InputIDs)
	expect(t, "stream", req.GetStream(), true)
	expect(t, "logprob_start_len set", req.LogprobStartLen != nil, false)
	sp := req.GetSamplingParams()
	expect(t, "temperature", sp.Temperature != nil && *sp.Temperature == float32(0.7), true)
	expect(t, "top_p", sp.GetTopP(), float32(0.9))
	expect(t, "top_k", sp.GetTopK(), int32(20))
	expect(t, "repetition_penalty", sp.GetRepetitionPenalty(), float32(1.05))
	expect(t, "min_p/penalties set", sp.MinP != nil || sp.FrequencyPenalty != nil || sp.PresencePenalty != nil, false)
	expect(t, "max_new_tokens", sp.GetMaxNewTokens(), uint32(32))
	expect(t, "stop", sp.GetStop(), []string{"\n\n"})
	expect(t, "logit_bias", sp.GetLogitBias(), map[string]float32{"151643": -100})
	expect(t, "custom_params.seed", sp.GetCustomParams().GetFields()["seed"].GetNumberValue(), 1234.0)
	expect(t, "n", sp.GetN(), uint32(1))
	items := req.GetMmInputs().GetItems()
	if len(items) != 1 {
		t.Fatalf("%d items", len(items))
	}
	it := items[0]
	expect(t, "modality", it.GetModality(), commonpb.Modality_IMAGE)
	expect(t, "content_hash", hex.EncodeToString(it.GetContentHash()), facts.ContentHash)
	enc := it.GetEncoderInput()
	expect(t, "encoder_input shape/dtype", []any{enc.GetShape(), enc.GetDtype()}, []any{[]uint32{8, 1176}, "bfloat16"})
	shm := enc.GetShm()
	expect(t, "encoder_input shm", []any{shm.GetOffset(), shm.GetNbytes(), shm.GetOwnerId()}, []any{uint64(0), uint64(8 * 1176 * 2), "smg:4242"})
	grid := it.GetModelSpecificTensors()["image_grid_thw"]
	expect(t, "image_grid_thw", []any{grid.GetShape(), grid.GetDtype(), values[int64](t, grid.GetInline())}, []any{[]uint32{1, 3}, "int64", facts.Grid})
	var ph [][]uint32
	for _, p := range it.GetPlaceholders() {
		ph = append(ph, []uint32{p.GetOffset(), p.GetLength()})
	}
	expect(t, "placeholders", ph, facts.Placeholders)
	expect(t, "placeholders are the pad runs", padRuns(facts.InputIDs, 151655), facts.Placeholders)
	expect(t, "placeholder_token_id", it.GetPlaceholderTokenId(), uint32(151655))
	sg := golden[*sglangpb.GenerateRequest](t, "sglang_generate_images.binpb", nil)[0]
	img := sg.GetMmInputs().GetImageData()[1]
	expect(t, "image bytes", sha256Hex(img), facts.ImageSHA256)
	want := blake3.Sum256([]byte(blake3Hex(img)))
	expect(t, "content_hash = BLAKE3(hex BLAKE3(bytes))", it.GetContentHash(), want[:])
}
