package tokenizer

import (
	"strings"
	"testing"
	"time"
)

// cpuMeter reports MB per CPU-second of the whole process beside the
// wall-clock MB/s: on a busy machine it is the steadier number.
type cpuMeter struct {
	b     *testing.B
	bytes int64
	start time.Duration
}

func startCPU(b *testing.B, bytes int) *cpuMeter {
	b.SetBytes(int64(bytes))
	b.ResetTimer()
	return &cpuMeter{b: b, bytes: int64(bytes), start: processCPU()}
}

func (m *cpuMeter) stop() {
	d := processCPU() - m.start
	if d > 0 {
		m.b.ReportMetric(float64(m.bytes)*float64(m.b.N)/d.Seconds()/1e6, "MB/cpu-s")
	}
}

// benchTexts returns the corpus texts (lines); mixed, the corpus without
// its long_* stress entries joined by newlines and repeated 40 times (about
// 0.3 MB of prose, code, markup and many scripts); and long, the long_*
// entries (single words of 300 to 1200 bytes) likewise.
// scripts/golden/tokenizer_bench.mjs builds the same texts for Hugging Face
// tokenizers.
func benchTexts(b *testing.B) (lines []string, mixed, long string) {
	var short, longs []string
	for _, e := range corpus(b) {
		lines = append(lines, e.Text)
		if strings.HasPrefix(e.Name, "long_") {
			longs = append(longs, e.Text)
		} else {
			short = append(short, e.Text)
		}
	}
	return lines, strings.Repeat(strings.Join(short, "\n"), 40), strings.Repeat(strings.Join(longs, "\n"), 40)
}

func BenchmarkEncodeCorpusLines(b *testing.B) {
	tk := loadQwen3(b)
	lines, _, _ := benchTexts(b)
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	m := startCPU(b, n)
	for b.Loop() {
		for _, l := range lines {
			tk.Encode(l)
		}
	}
	m.stop()
}

func BenchmarkEncodeMixed(b *testing.B) {
	tk := loadQwen3(b)
	_, mixed, _ := benchTexts(b)
	m := startCPU(b, len(mixed))
	for b.Loop() {
		tk.Encode(mixed)
	}
	m.stop()
}

func BenchmarkEncodeLongWords(b *testing.B) {
	tk := loadQwen3(b)
	_, _, long := benchTexts(b)
	m := startCPU(b, len(long))
	for b.Loop() {
		tk.Encode(long)
	}
	m.stop()
}

func BenchmarkEncodeMixedParallel(b *testing.B) {
	tk := loadQwen3(b)
	lines, _, _ := benchTexts(b)
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	b.SetBytes(int64(n))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			for _, l := range lines {
				tk.Encode(l)
			}
		}
	})
}

func BenchmarkEncodeMixedNoCache(b *testing.B) {
	data, err := qwen3JSON()
	if err != nil {
		b.Fatal(err)
	}
	tk, err := New(data, Options{CacheEntries: -1})
	if err != nil {
		b.Fatal(err)
	}
	_, mixed, _ := benchTexts(b)
	b.SetBytes(int64(len(mixed)))
	b.ResetTimer()
	for b.Loop() {
		tk.Encode(mixed)
	}
}

func BenchmarkDecodeMixed(b *testing.B) {
	tk := loadQwen3(b)
	_, mixed, _ := benchTexts(b)
	ids := tk.Encode(mixed)
	b.SetBytes(int64(len(mixed)))
	b.ResetTimer()
	for b.Loop() {
		tk.Decode(ids, false)
	}
}

func BenchmarkStreamMixed(b *testing.B) {
	tk := loadQwen3(b)
	_, mixed, _ := benchTexts(b)
	ids := tk.Encode(mixed)
	b.SetBytes(int64(len(mixed)))
	b.ResetTimer()
	for b.Loop() {
		s := tk.NewStream(false)
		for _, id := range ids {
			s.Add(id)
		}
		s.Flush()
	}
}

func BenchmarkLoad(b *testing.B) {
	data, err := qwen3JSON()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := FromJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}
