package prompt

import (
	"reflect"
	"testing"
)

func TestVideoExpansion(t *testing.T) {
	for _, c := range []struct {
		name                    string
		ts                      []float64
		gridT, gridH, gridW, mg int
		want                    Expansion
	}{
		{"qwen2.5 single run", nil, 2, 20, 28, 2, Expansion{Tokens: 280}},
		{"qwen2.5 one group", nil, 1, 20, 28, 2, Expansion{Tokens: 140}},
		{"qwen3 groups", []float64{0.32, 1.64}, 2, 4, 6, 2, Expansion{Tokens: 12, Groups: []VideoGroup{{0.32, 6}, {1.64, 6}}}},
		{"qwen3 odd frames padded", []float64{0.3416666666666666, 1.6855555555555553, 2.6877777777777774}, 3, 4, 6, 2,
			Expansion{Tokens: 18, Groups: []VideoGroup{{0.3416666666666666, 6}, {1.6855555555555553, 6}, {2.6877777777777774, 6}}}},
		{"merge 1", nil, 2, 3, 5, 1, Expansion{Tokens: 30}},
		{"merge 0 is 1", []float64{0}, 1, 3, 5, 0, Expansion{Tokens: 15, Groups: []VideoGroup{{0, 15}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := VideoExpansion(c.ts, c.gridT, c.gridH, c.gridW, c.mg)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
