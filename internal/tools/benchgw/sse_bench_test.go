package benchgw

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkReadStream measures the client's cost of reading one reply of the
// reference worker (about 60 chunks), the per-request overhead the load
// generator adds.
func BenchmarkReadStream(b *testing.B) {
	var sb strings.Builder
	for i := range 60 {
		fmt.Fprintf(&sb, `data: {"id":"chatcmpl-e2ed74c7434d2b1335aebc52","object":"chat.completion.chunk","created":1796039337,"model":"qwen3-vl","choices":[{"index":0,"delta":{"content":"tok%d "},"logprobs":null,"finish_reason":null}],"system_fingerprint":null}`+"\n\n", i)
	}
	sb.WriteString("data: [DONE]\n\n")
	in := sb.String()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := readStream(strings.NewReader(in), time.Now); err != nil {
			b.Fatal(err)
		}
	}
}
