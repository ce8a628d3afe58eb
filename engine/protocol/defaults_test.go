package protocol

import "testing"

func TestSamplingDefaults(t *testing.T) {
	d, err := ParseSamplingDefaults(`{"temperature":0.7,"top_p":0.8,"top_k":20,"repetition_penalty":1.05,"max_tokens":9,"min_p":null}`)
	if err != nil {
		t.Fatal(err)
	}
	if *d.Temperature != 0.7 || *d.TopP != 0.8 || *d.TopK != 20 || *d.RepetitionPenalty != 1.05 || d.MinP != nil {
		t.Errorf("parsed %+v", d)
	}
	temp := float32(0.2)
	s := Sampling{Temperature: &temp}
	d.Apply(&s)
	if *s.Temperature != 0.2 || *s.TopP != 0.8 || *s.TopK != 20 || *s.RepetitionPenalty != 1.05 || s.MinP != nil {
		t.Errorf("applied %+v", s)
	}
	*d.TopP = 0.5 // the request's copy is its own
	if *s.TopP != 0.8 {
		t.Error("Apply shares the defaults' memory")
	}
	for _, bad := range []string{`[1]`, `{"top_k":"x"}`, `nope`} {
		if _, err := ParseSamplingDefaults(bad); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
	if d, err := ParseSamplingDefaults(""); err != nil || d.Temperature != nil {
		t.Errorf("empty: %+v %v", d, err)
	}
	if d, _ := ParseSamplingDefaults(`{"top_k":2.5}`); d.TopK != nil {
		t.Error("a fractional top_k is not an integer default")
	}
}

// FuzzParseSamplingDefaults: a worker's defaults JSON parses or fails
// cleanly, and what parses applies without touching set parameters.
func FuzzParseSamplingDefaults(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"temperature":0.7,"top_k":20}`, `{"top_p":1e400}`, `{"top_k":-1.5}`, `[`, `null`, `{"min_p":"x"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseSamplingDefaults(s)
		if err != nil {
			return
		}
		temp := float32(2)
		sp := Sampling{Temperature: &temp}
		d.Apply(&sp)
		if *sp.Temperature != 2 {
			t.Fatalf("a set temperature changed: %v", *sp.Temperature)
		}
	})
}
