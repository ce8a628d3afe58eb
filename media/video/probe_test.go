package video

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestParseProbe(t *testing.T) {
	for _, c := range []struct {
		name    string
		json    string
		counted bool
		want    Info
		err     error
	}{
		{"basic", `{"streams":[{"codec_name":"h264","codec_type":"video","width":96,"height":64,"avg_frame_rate":"25/1","r_frame_rate":"25/1","nb_read_frames":"50"}],"format":{"duration":"2.000000"}}`,
			true, Info{Codec: "h264", Width: 96, Height: 64, Frames: 50, FPS: 25, Duration: 2}, nil},
		{"avg unknown falls back to r_frame_rate", `{"streams":[{"codec_name":"vp9","width":8,"height":6,"avg_frame_rate":"0/0","r_frame_rate":"30000/1001"}],"format":{"duration":"N/A"}}`,
			false, Info{Codec: "vp9", Width: 8, Height: 6, FPS: 30000.0 / 1001}, nil},
		{"stream duration", `{"streams":[{"width":8,"height":6,"duration":"1.5"}],"format":{}}`,
			false, Info{Width: 8, Height: 6, Duration: 1.5}, nil},
		{"display matrix -90 swaps", `{"streams":[{"width":96,"height":64,"side_data_list":[{"side_data_type":"Display Matrix","rotation":-90}]}]}`,
			false, Info{Width: 64, Height: 96, Rotation: 90}, nil},
		{"180 keeps", `{"streams":[{"width":96,"height":64,"side_data_list":[{"side_data_type":"Display Matrix","rotation":180}]}]}`,
			false, Info{Width: 96, Height: 64, Rotation: 180}, nil},
		{"rotate tag", `{"streams":[{"width":96,"height":64,"tags":{"rotate":"270"}}]}`,
			false, Info{Width: 64, Height: 96, Rotation: 270}, nil},
		{"no stream", `{"streams":[]}`, false, Info{}, ErrUnsupported},
		{"audio stream", `{"streams":[{"codec_type":"audio","width":1,"height":1}]}`, false, Info{}, ErrUnsupported},
		{"zero size", `{"streams":[{"width":0,"height":64}]}`, false, Info{}, ErrCorrupt},
		{"huge size", `{"streams":[{"width":70000,"height":64}]}`, false, Info{}, ErrCorrupt},
		{"count missing", `{"streams":[{"width":8,"height":8}]}`, true, Info{}, ErrCorrupt},
		{"count negative", `{"streams":[{"width":8,"height":8,"nb_read_frames":"-3"}]}`, true, Info{}, ErrCorrupt},
		{"not json", `frame=1`, false, Info{}, ErrCorrupt},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseProbe([]byte(c.json), c.counted)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err = %v, want %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestParseRate(t *testing.T) {
	for s, want := range map[string]float64{
		"25/1": 25, "30000/1001": 30000.0 / 1001, "0/0": 0, "1/0": 0, "-1/2": 0, "": 0, "25": 0, "a/b": 0, "900/41": 900.0 / 41,
	} {
		if got := parseRate(s); got != want {
			t.Errorf("parseRate(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestNormRotation(t *testing.T) {
	for deg, want := range map[float64]int{0: 0, 90: 90, -90: 270, 180: 180, -180: 180, 270: 270, 450: 90, 45: 0, 1e300: 0} {
		if got := normRotation(deg); got != want {
			t.Errorf("normRotation(%v) = %d, want %d", deg, got, want)
		}
	}
}

// FuzzParseProbe: no ffprobe output makes the parser panic, and accepted
// output always describes a sane frame size and rate.
func FuzzParseProbe(f *testing.F) {
	f.Add([]byte(`{"streams":[{"codec_name":"h264","width":96,"height":64,"avg_frame_rate":"25/1","nb_read_frames":"50"}],"format":{"duration":"2.0"}}`), true)
	f.Add([]byte(`{"streams":[{"width":96,"height":64,"side_data_list":[{"side_data_type":"Display Matrix","rotation":-90}]}]}`), false)
	f.Fuzz(func(t *testing.T, data []byte, counted bool) {
		info, err := parseProbe(data, counted)
		if err != nil {
			return
		}
		if info.Width <= 0 || info.Height <= 0 || info.Width > maxSide || info.Height > maxSide {
			t.Fatalf("accepted size %dx%d", info.Width, info.Height)
		}
		if info.FPS < 0 || info.Duration < 0 || info.Frames < 0 {
			t.Fatalf("accepted %+v", info)
		}
	})
}

func TestReadProgress(t *testing.T) {
	for in, want := range map[string]int{
		"frame=10\nfps=0.0\nprogress=continue\nframe=37\nprogress=end\n": 37,
		"":                         -1,
		"frame=abc\nframe=-4\n":    -1,
		"frame=5\nframe=x\n":       5,
		"frame= 12 \nprogress=end": 12,
	} {
		if got := readProgress(strings.NewReader(in)); got != want {
			t.Errorf("readProgress(%q) = %d, want %d", in, got, want)
		}
	}
}

// FuzzReadProgress: any progress stream parses without panicking to -1 or
// a non-negative count.
func FuzzReadProgress(f *testing.F) {
	f.Add([]byte("frame=600\nfps=212.31\nstream_0_0_q=-0.0\nprogress=end\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if n := readProgress(bytes.NewReader(data)); n < -1 {
			t.Fatalf("count %d", n)
		}
	})
}
