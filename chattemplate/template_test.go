package chattemplate

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

type testCase struct {
	Name                 string          `json:"name"`
	Template             string          `json:"template"`
	Messages             json.RawMessage `json:"messages"`
	Tools                json.RawMessage `json:"tools"`
	AddGenerationPrompt  bool            `json:"add_generation_prompt"`
	ContinueFinalMessage bool            `json:"continue_final_message"`
	Kwargs               json.RawMessage `json:"kwargs"`
}

type goldenResult struct {
	Name   string  `json:"name"`
	Output *string `json:"output"`
	Raise  *string `json:"raise"`
	Error  *string `json:"error"`
}

func loadCases(t testing.TB) (map[string]*Template, []testCase) {
	t.Helper()
	raw, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Templates map[string]string `json:"templates"`
		Cases     []testCase        `json:"cases"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	tmpls := map[string]*Template{}
	for name, file := range doc.Templates {
		path := filepath.Join("testdata", file)
		var src string
		if strings.HasSuffix(file, ".json") {
			cfg, err := readTokenizerConfig(path)
			if err != nil {
				t.Fatal(err)
			}
			src = cfg.defaultTemplate
		} else {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			src = string(b)
		}
		tm, err := Compile(src, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tmpls[name] = tm
	}
	return tmpls, doc.Cases
}

func caseInput(t testing.TB, c testCase) Input {
	t.Helper()
	in := Input{AddGenerationPrompt: c.AddGenerationPrompt, ContinueFinalMessage: c.ContinueFinalMessage}
	msgs, err := DecodeJSON(c.Messages)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs.([]any) {
		in.Messages = append(in.Messages, asObjects(m).(Object))
	}
	if len(c.Tools) > 0 {
		in.Tools = c.Tools
	}
	if len(c.Kwargs) > 0 {
		kw, err := DecodeJSON(c.Kwargs)
		if err != nil {
			t.Fatal(err)
		}
		in.Kwargs = kw.(Object)
	}
	return in
}

// asObjects turns content lists of objects into []Object, the shape the
// prompt package builds.
func asObjects(v any) any {
	switch x := v.(type) {
	case Object:
		for i := range x {
			x[i].Value = asObjects(x[i].Value)
		}
		return x
	case []any:
		objs := make([]Object, 0, len(x))
		for _, it := range x {
			o, ok := it.(Object)
			if !ok {
				return x
			}
			objs = append(objs, asObjects(o).(Object))
		}
		return objs
	}
	return v
}

func TestGolden(t *testing.T) {
	tmpls, cases := loadCases(t)
	raw, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Results []goldenResult `json:"results"`
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Results) != len(cases) {
		t.Fatalf("golden has %d results for %d cases; regenerate it", len(golden.Results), len(cases))
	}
	for i, c := range cases {
		want := golden.Results[i]
		t.Run(c.Name, func(t *testing.T) {
			if want.Name != c.Name {
				t.Fatalf("golden result %d is %q", i, want.Name)
			}
			got, err := tmpls[c.Template].Render(caseInput(t, c))
			switch {
			case want.Output != nil:
				if err != nil {
					t.Fatalf("render: %v", err)
				}
				if got != *want.Output {
					t.Errorf("output differs from jinja2\n got: %q\nwant: %q", got, *want.Output)
				}
			case want.Raise != nil:
				var re *RaiseError
				if !errors.As(err, &re) || re.Message != *want.Raise || !errors.Is(err, ErrBadInput) {
					t.Errorf("err = %v, want RaiseError %q", err, *want.Raise)
				}
			default:
				if !errors.Is(err, ErrBadInput) {
					t.Errorf("err = %v, want ErrBadInput (reference: %s)", err, *want.Error)
				}
			}
		})
	}
}

func TestConcurrentRender(t *testing.T) {
	tmpls, cases := loadCases(t)
	want := make([]string, len(cases))
	for i, c := range cases {
		want[i], _ = tmpls[c.Template].Render(caseInput(t, c))
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, c := range cases {
				if got, _ := tmpls[c.Template].Render(caseInput(t, c)); got != want[i] {
					t.Errorf("%s: concurrent render differs", c.Name)
				}
			}
		}()
	}
	wg.Wait()
}
