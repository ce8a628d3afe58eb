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
