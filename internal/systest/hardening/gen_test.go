package hardening

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus from the generator")

// corpusCase is one line of testdata/corpus/cases.tsv.
type corpusCase struct {
	name   string // file name under testdata/corpus (".gz": gzip-compressed body)
	status int
	code   string // expected error.code; "" for 200
	note   string
}

// generated builds the whole corpus: request bodies and what the gateway
// must answer (the README's Errors table).
func generated(t *testing.T) (map[string][]byte, []corpusCase) {
	bodies := map[string][]byte{}
	var cases []corpusCase
	add := func(name string, body []byte, status int, code, note string) {
		if _, dup := bodies[name]; dup {
			t.Fatalf("duplicate case %s", name)
		}
		bodies[name] = body
		cases = append(cases, corpusCase{name, status, code, note})
	}
	const bad = "invalid_request_error"
	chat := func(extra string, content any) []byte {
		c, _ := json.Marshal(content)
		s := `{"model":"qwen3-vl","max_tokens":4,"messages":[{"role":"user","content":` + string(c) + `}]` + extra + `}`
		return []byte(s)
	}
	img := func(url string) []any {
		return []any{map[string]any{"type": "image_url", "image_url": map[string]any{"url": url}}, map[string]any{"type": "text", "text": "Describe."}}
	}
	data := func(mime string, b []byte) string {
		return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b)
	}

	// Requests.
	add("req_ok_text.json", chat("", "Hello"), 200, "", "control: plain text")
	add("req_invalid_json.json", []byte(`{"model":"qwen3-vl","messages":[{"role":"user","content":"hi"}`), 400, bad, "unterminated JSON")
	add("req_not_json.json", []byte("model=qwen3-vl&messages=hi"), 400, bad, "form encoding")
	add("req_empty.json", []byte(""), 400, bad, "empty body")
	add("req_json_null.json", []byte("null"), 400, bad, "JSON null")
	add("req_json_array.json", []byte(`[{"model":"qwen3-vl"}]`), 400, bad, "array instead of object")
	add("req_trailing_garbage.json", append(chat("", "hi"), "}{"...), 400, bad, "trailing bytes after the object")
	add("req_invalid_utf8.json", []byte("{\"model\":\"qwen3-vl\",\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]}"), 200, "", "invalid UTF-8 in a string: replaced, as encoding/json does")
	nest := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	add("req_deep_nesting_kwargs.json.gz", []byte(`{"model":"qwen3-vl","messages":[{"role":"user","content":"hi"}],"chat_template_kwargs":{"x":`+nest+`}}`), 400, bad, "100000 nested arrays in chat_template_kwargs")
	nestObj := strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)
	add("req_deep_nesting_content.json.gz", []byte(`{"model":"qwen3-vl","messages":[{"role":"user","content":`+nestObj+`}]}`), 400, bad, "100000 nested objects as content")
	add("req_huge_string.json.gz", chat("", strings.Repeat("lorem ipsum ", 20000)), 200, "", "240 kB of text: within the context")
	add("req_huge_model_name.json.gz", []byte(`{"model":"`+strings.Repeat("m", 200000)+`","messages":[{"role":"user","content":"hi"}]}`), 404, "model_not_found", "200 kB model name")
	add("req_body_over_limit.json.gz", chat("", strings.Repeat("x", 5<<20)), 413, "too_large", "5 MiB body, over the test gateway's 4 MiB limit")
	add("req_unknown_fields.json", chat(`,"frobnicate":{"a":[1,2,3]},"logit_bias_extra":true`, "hi"), 200, "", "unknown top-level fields are ignored, as OpenAI and vLLM do")
	add("req_messages_string.json", []byte(`{"model":"qwen3-vl","messages":"hi"}`), 400, bad, "messages is a string")
	add("req_messages_missing.json", []byte(`{"model":"qwen3-vl"}`), 400, bad, "no messages")
	add("req_messages_empty.json", []byte(`{"model":"qwen3-vl","messages":[]}`), 400, bad, "empty messages")
	add("req_content_number.json", chat("", 42), 400, bad, "content is a number")
	add("req_role_unknown.json", []byte(`{"model":"qwen3-vl","messages":[{"role":"wizard","content":"hi"}]}`), 400, bad, "unknown role")
	add("req_max_tokens_string.json", chat(`,"max_tokens":"ten"`, "hi"), 400, bad, "max_tokens is a string")
	add("req_max_tokens_negative.json", []byte(`{"model":"qwen3-vl","max_tokens":-5,"messages":[{"role":"user","content":"hi"}]}`), 400, bad, "negative max_tokens")
	add("req_max_tokens_over_context.json", []byte(`{"model":"qwen3-vl","max_tokens":100000000,"messages":[{"role":"user","content":"hi"}]}`), 400, bad, "prompt + max_tokens over the context length")
	add("req_temperature_string.json", []byte(`{"model":"qwen3-vl","temperature":"hot","messages":[{"role":"user","content":"hi"}]}`), 400, bad, "temperature is a string")
	add("req_n_zero.json", []byte(`{"model":"qwen3-vl","n":0,"messages":[{"role":"user","content":"hi"}]}`), 400, bad, "n = 0")
	add("req_stream_string.json", []byte(`{"model":"qwen3-vl","stream":"yes","messages":[{"role":"user","content":"hi"}]}`), 400, bad, "stream is a string")
	add("req_part_type_unknown.json", chat("", []any{map[string]any{"type": "hologram", "hologram": "x"}}), 400, bad, "unknown content part type")
	add("req_image_url_number.json", chat("", []any{map[string]any{"type": "image_url", "image_url": 7}}), 400, bad, "image_url is a number")
	add("req_audio_part.json", chat("", []any{map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": "AAAA", "format": "wav"}}}), 400, bad, "audio is not supported by the model")
	add("req_top_logprobs_huge.json", chat(`,"logprobs":true,"top_logprobs":1000000000`, "hi"), 400, bad, "top_logprobs 1e9 (once grew the worker to tens of GB)")
	add("req_top_logprobs_21.json", chat(`,"logprobs":true,"top_logprobs":21`, "hi"), 400, bad, "top_logprobs over 20")
	add("req_n_huge.json", chat(`,"n":1000000`, "hi"), 400, bad, "n = 1000000")
	add("req_unknown_model.json", []byte(`{"model":"gpt-17","messages":[{"role":"user","content":"hi"}]}`), 404, "model_not_found", "unknown model")
	var many strings.Builder
	many.WriteString(`{"model":"qwen3-vl","max_tokens":4,"messages":[`)
	for i := 0; i < 20000; i++ {
		if i > 0 {
			many.WriteByte(',')
		}
		many.WriteString(`{"role":"user","content":"a b c d e f g h i j k l m n o p q r s t"}`)
	}
	many.WriteString(`]}`)
	add("req_many_messages.json.gz", []byte(many.String()), 400, bad, "20000 messages: the prompt is over the context length")
	for _, tok := range []string{"<|image_pad|>", "<|vision_start|>", "<|video_pad|>", "<|vision_end|>"} {
		name := strings.Trim(tok, "<|>")
		add("req_placeholder_"+name+".json", chat("", "look: "+tok+" here"), 400, bad, "media placeholder "+tok+" typed in user text")
	}
	add("req_placeholder_system.json", []byte(`{"model":"qwen3-vl","messages":[{"role":"system","content":"<|image_pad|>"},{"role":"user","content":"hi"}]}`), 400, bad, "placeholder in a system message")

	// Media.
	valid := validImages(t)
	tiny := valid["png"]
	var items []any
	for i := 0; i < 17; i++ {
		items = append(items, map[string]any{"type": "image_url", "image_url": map[string]any{"url": data("image/png", tiny)}})
	}
	add("media_too_many_items.json", chat("", items), 400, bad, "17 images, over the limit of 16")
	add("media_bad_base64.json", chat("", img("data:image/png;base64,iVBORw0KGgo!!!!@@@@")), 400, bad, "invalid base64")
	add("media_bad_base64_padding.json", chat("", img("data:image/png;base64,iVBO=Rw0KGgo=")), 400, bad, "padding in the middle")
	add("media_missing_mime.json", chat("", img("data:;base64,"+base64.StdEncoding.EncodeToString(tiny))), 200, "", "no media type: the bytes are sniffed")
	add("media_wrong_mime.json", chat("", img(data("image/jpeg", tiny))), 200, "", "PNG declared as JPEG: the bytes decide (the declaration is never trusted)")
	add("media_text_mime.json", chat("", img(data("text/plain", []byte("just some text, not an image")))), 422, "unprocessable_media", "text declared as text")
	add("media_not_image_bytes.json", chat("", img(data("image/jpeg", []byte("GIF? no. PNG? no. This is plain text pretending to be a JPEG.")))), 422, "unprocessable_media", "non-image bytes with an image MIME type")
	add("media_zero_bytes.json", chat("", img("data:image/png;base64,")), 422, "unprocessable_media", "0-byte file")
	add("media_html.json", chat("", img(data("image/png", []byte("<html><body>hi</body></html>")))), 422, "unprocessable_media", "HTML with an image MIME type")
	formats := []string{"png", "jpeg", "gif", "bmp", "tiff", "webp"}
	for _, f := range formats {
		b := valid[f]
		add("media_ok_"+f+".json", chat("", img(data("image/"+f, b))), 200, "", "control: valid "+f)
		add("media_truncated_half_"+f+".json", chat("", img(data("image/"+f, b[:len(b)/2]))), 422, "unprocessable_media", "truncated to half")
		add("media_truncated_header_"+f+".json", chat("", img(data("image/"+f, b[:min(len(b), 20)]))), 422, "unprocessable_media", "truncated inside the header")
		add("media_corrupt_"+f+".json", chat("", img(data("image/"+f, corrupt(t, f, b)))), 422, "unprocessable_media", "corrupt header structure")
		add("media_bomb_"+f+".json", chat("", img(data("image/"+f, bomb(t, f, b)))), 413, "too_large", "declares far more pixels than the cap")
	}
	add("media_animated_gif_2000_frames.json", chat("", img(data("image/gif", animatedGIF(t, 2000)))), 200, "", "2000-frame GIF: the first frame is used")
	add("media_ratio_201.json", chat("", img(data("image/png", pngOf(t, 201*28, 28)))), 400, bad, "aspect ratio 201:1")
	add("media_ratio_1_250.json", chat("", img(data("image/png", pngOf(t, 1, 250)))), 400, bad, "aspect ratio 1:250")
	add("media_ratio_200.json", chat("", img(data("image/png", pngOf(t, 200*28, 28)))), 200, "", "aspect ratio exactly 200: allowed")
	// Video (skipped by TestCorpus while the gateway refuses video parts).
	clip, err := os.ReadFile("testdata/video/testsrc_64x48_2s.mp4")
	must(t, err)
	vid := func(b []byte) []any {
		return []any{map[string]any{"type": "video_url", "video_url": map[string]any{"url": data("video/mp4", b)}}, map[string]any{"type": "text", "text": "Describe."}}
	}
	add("video_ok_mp4.json", chat("", vid(clip)), 200, "", "control: 2 s, 4 frames")
	add("video_duration_49_days.json", chat("", vid(mp4Patch(t, clip, "duration"))), 413, "too_large", "mvhd/tkhd/mdhd durations of 2^32-16 ticks (49 days at 1 kHz)")
	add("video_frame_count_4e9.json", chat("", vid(mp4Patch(t, clip, "frames"))), 200, "", "stts declares 4e9 samples: ignored, frames are counted by decoding")
	add("video_truncated.json", chat("", vid(clip[:len(clip)/2])), 422, "unprocessable_media", "MP4 cut in half")
	add("video_not_video.json", chat("", vid([]byte("this is not a video at all, just text bytes"))), 422, "unprocessable_media", "text bytes as video/mp4")
	add("media_url_scheme_ftp.json", chat("", img("ftp://example.com/a.png")), 403, "media_url_forbidden", "ftp: scheme")
	add("media_url_scheme_file.json", chat("", img("file:///etc/passwd")), 403, "media_url_forbidden", "file: without allowed roots")
	add("media_url_gopher.json", chat("", img("gopher://127.0.0.1:70/x")), 403, "media_url_forbidden", "gopher: scheme")
	add("media_url_not_a_url.json", chat("", img("::::not a url")), 400, bad, "unparsable URL")
	return bodies, cases
}

func validImages(t *testing.T) map[string][]byte {
	m := image.NewNRGBA(image.Rect(0, 0, 64, 48))
	for y := 0; y < 48; y++ {
		for x := 0; x < 64; x++ {
			m.Set(x, y, color.NRGBA{uint8(x * 4), uint8(y * 5), uint8(x ^ y), 255})
		}
	}
	out := map[string][]byte{}
	var b bytes.Buffer
	must(t, png.Encode(&b, m))
	out["png"] = bytes.Clone(b.Bytes())
	b.Reset()
	must(t, jpeg.Encode(&b, m, &jpeg.Options{Quality: 80}))
	out["jpeg"] = bytes.Clone(b.Bytes())
	b.Reset()
	must(t, gif.Encode(&b, m, nil))
	out["gif"] = bytes.Clone(b.Bytes())
	b.Reset()
	must(t, bmp.Encode(&b, m))
	out["bmp"] = bytes.Clone(b.Bytes())
	b.Reset()
	must(t, tiff.Encode(&b, m, nil))
	out["tiff"] = bytes.Clone(b.Bytes())
	w, err := os.ReadFile("../../../media/testdata/corpus/webp_lossy.webp")
	must(t, err)
	out["webp"] = w
	return out
}

func pngOf(t *testing.T, w, h int) []byte {
	m := image.NewGray(image.Rect(0, 0, w, h))
	for i := range m.Pix {
		m.Pix[i] = uint8(i * 7)
	}
	var b bytes.Buffer
	must(t, png.Encode(&b, m))
	return b.Bytes()
}

func animatedGIF(t *testing.T, frames int) []byte {
	g := &gif.GIF{}
	for i := 0; i < frames; i++ {
		p := image.NewPaletted(image.Rect(0, 0, 2, 2), palette.Plan9[:16])
		p.Pix[i%4] = uint8(i % 16)
		g.Image = append(g.Image, p)
		g.Delay = append(g.Delay, 0)
	}
	var b bytes.Buffer
	must(t, gif.EncodeAll(&b, g))
	return b.Bytes()
}

// pngChunk is a PNG chunk with its CRC.
func pngChunk(typ string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, uint32(len(data)))
	b.WriteString(typ)
	b.Write(data)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	return b.Bytes()
}

// bomb makes a small file of format f that declares 100000×100000 pixels
// (or the format's maximum, still far over the 64 Mpx cap).
func bomb(t *testing.T, f string, valid []byte) []byte {
	switch f {
	case "png":
		ihdr := make([]byte, 13)
		binary.BigEndian.PutUint32(ihdr[0:], 100000)
		binary.BigEndian.PutUint32(ihdr[4:], 100000)
		ihdr[8], ihdr[9] = 8, 2
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(make([]byte, 1<<20)) // the first megabyte of zero rows
		zw.Close()
		out := []byte("\x89PNG\r\n\x1a\n")
		out = append(out, pngChunk("IHDR", ihdr)...)
		out = append(out, pngChunk("IDAT", z.Bytes())...)
		return append(out, pngChunk("IEND", nil)...)
	case "jpeg":
		b := bytes.Clone(valid)
		i := bytes.Index(b, []byte{0xFF, 0xC0})
		if i < 0 {
			t.Fatal("no SOF0")
		}
		binary.BigEndian.PutUint16(b[i+5:], 65500) // height
		binary.BigEndian.PutUint16(b[i+7:], 65500) // width
		return b
	case "gif":
		b := bytes.Clone(valid)
		binary.LittleEndian.PutUint16(b[6:], 65535)
		binary.LittleEndian.PutUint16(b[8:], 65535)
		i := bytes.IndexByte(b[13+3*int(2<<(b[10]&7)):], 0x2C) + 13 + 3*int(2<<(b[10]&7))
		if b[10]&0x80 == 0 {
			i = bytes.IndexByte(b[13:], 0x2C) + 13
		}
		binary.LittleEndian.PutUint16(b[i+5:], 65535)
		binary.LittleEndian.PutUint16(b[i+7:], 65535)
		return b
	case "bmp":
		b := bytes.Clone(valid)
		binary.LittleEndian.PutUint32(b[18:], 100000)
		binary.LittleEndian.PutUint32(b[22:], 100000)
		return b
	case "tiff":
		// Little-endian TIFF, one IFD: 100000×100000 8-bit grey, one strip
		// of 64 bytes.
		var b bytes.Buffer
		b.WriteString("II*\x00")
		binary.Write(&b, binary.LittleEndian, uint32(8))
		type ent struct {
			tag, typ uint16
			n, v     uint32
		}
		ents := []ent{{256, 4, 1, 100000}, {257, 4, 1, 100000}, {258, 3, 1, 8}, {259, 3, 1, 1}, {262, 3, 1, 1},
			{273, 4, 1, 8 + 2 + 9*12 + 4}, {277, 3, 1, 1}, {278, 4, 1, 100000}, {279, 4, 1, 64}}
		binary.Write(&b, binary.LittleEndian, uint16(len(ents)))
		for _, e := range ents {
			binary.Write(&b, binary.LittleEndian, e)
		}
		binary.Write(&b, binary.LittleEndian, uint32(0))
		b.Write(make([]byte, 64))
		return b.Bytes()
	case "webp":
		// VP8X canvas of 16384×16384 around the valid lossy bitstream.
		vp8 := valid[12:]
		x := make([]byte, 10)
		x[0] = 0
		putU24 := func(p []byte, v uint32) { p[0], p[1], p[2] = byte(v), byte(v>>8), byte(v>>16) }
		putU24(x[4:], 16383)
		putU24(x[7:], 16383)
		var body bytes.Buffer
		body.WriteString("WEBP")
		body.WriteString("VP8X")
		binary.Write(&body, binary.LittleEndian, uint32(10))
		body.Write(x)
		body.Write(vp8)
		var out bytes.Buffer
		out.WriteString("RIFF")
		binary.Write(&out, binary.LittleEndian, uint32(body.Len()))
		out.Write(body.Bytes())
		return out.Bytes()
	}
	t.Fatalf("no bomb for %s", f)
	return nil
}

// corrupt damages a structure every decoder must check.
func corrupt(t *testing.T, f string, valid []byte) []byte {
	b := bytes.Clone(valid)
	switch f {
	case "png":
		b[29] ^= 0xFF // IHDR CRC
	case "jpeg":
		i := bytes.Index(b, []byte{0xFF, 0xC4}) // first DHT: garbage table
		for k := i + 4; k < i+40 && k < len(b); k++ {
			b[k] = 0xFF
		}
	case "gif":
		i := bytes.IndexByte(b[13+3*int(2<<(b[10]&7)):], 0x2C) + 13 + 3*int(2<<(b[10]&7))
		if b[i+9]&0x80 != 0 {
			i += 3 * int(2<<(b[i+9]&7))
		}
		b[i+10] = 0x0F // LZW minimum code size out of range
	case "bmp":
		binary.LittleEndian.PutUint16(b[28:], 7) // 7 bits per pixel
	case "tiff":
		binary.LittleEndian.PutUint32(b[4:], uint32(len(b)+1000)) // IFD offset past the end
	case "webp":
		binary.LittleEndian.PutUint32(b[16:], 0xFFFFFF00) // VP8 chunk size
	default:
		t.Fatalf("no corruption for %s", f)
	}
	return b
}

// mp4Patch rewrites the durations or the declared sample count of a small
// ISO BMFF file (version-0 boxes).
func mp4Patch(t *testing.T, clip []byte, what string) []byte {
	b := bytes.Clone(clip)
	put := func(box string, off int, v uint32) {
		i := bytes.Index(b, []byte(box))
		if i < 0 {
			t.Fatalf("no %s box", box)
		}
		binary.BigEndian.PutUint32(b[i+off:], v)
	}
	switch what {
	case "duration":
		put("mvhd", 20, 0xFFFFFFF0)
		put("tkhd", 24, 0xFFFFFFF0)
		put("mdhd", 20, 0xFFFFFFF0)
	case "frames":
		put("stts", 12, 4000000000) // sample_count of the only entry
	}
	return b
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestGenerateCorpus rewrites testdata/corpus with -update; otherwise it
// checks that the committed cases.tsv lists exactly the generator's cases.
func TestGenerateCorpus(t *testing.T) {
	bodies, cases := generated(t)
	dir := filepath.Join("testdata", "corpus")
	var tsv strings.Builder
	tsv.WriteString("# file\tstatus\tcode\tnote (generated by TestGenerateCorpus -update; see doc.go)\n")
	sort.Slice(cases, func(i, j int) bool { return cases[i].name < cases[j].name })
	for _, c := range cases {
		code := c.code
		if code == "" {
			code = "-"
		}
		fmt.Fprintf(&tsv, "%s\t%d\t%s\t%s\n", c.name, c.status, code, c.note)
	}
	if !*update {
		got, err := os.ReadFile(filepath.Join(dir, "cases.tsv"))
		if err != nil || string(got) != tsv.String() {
			t.Fatalf("testdata/corpus/cases.tsv is out of date (err %v); run go test ./internal/systest/hardening -run TestGenerateCorpus -update", err)
		}
		return
	}
	old, _ := filepath.Glob(filepath.Join(dir, "*.json*"))
	for _, f := range old {
		os.Remove(f)
	}
	for name, b := range bodies {
		if strings.HasSuffix(name, ".gz") {
			var z bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
			zw.Write(b)
			zw.Close()
			b = z.Bytes()
		}
		must(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	must(t, os.WriteFile(filepath.Join(dir, "cases.tsv"), []byte(tsv.String()), 0o644))
}
