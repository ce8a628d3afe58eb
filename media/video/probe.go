package video

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Info describes the first video stream of a file.
type Info struct {
	Container string // Sniff's name
	Codec     string // FFmpeg codec name (h264, vp9, mpeg4, …)
	Width     int    // frame width as decoded, after the display rotation
	Height    int    // frame height as decoded, after the display rotation
	Frames    int    // decoded frames (0 until counted)
	// DeclaredFrames is the container's frame count (MP4 sample count, AVI
	// header); 0 when the container has none (WebM). It is a hint only:
	// Decode verifies any plan made from it against the decoded count.
	DeclaredFrames int
	FPS            float64 // average frame rate (r_frame_rate if unknown; 0 if both are)
	Duration       float64 // seconds: container or stream duration, else Frames/FPS; 0 if unknown
	Rotation       int     // clockwise rotation FFmpeg applies to display the frames (0, 90, 180, 270)
}

// probeJSON is the subset of `ffprobe -of json` output the package reads.
type probeJSON struct {
	Streams []struct {
		CodecName    string `json:"codec_name"`
		CodecType    string `json:"codec_type"`
		Width        int    `json:"width"`
		Height       int    `json:"height"`
		AvgFrameRate string `json:"avg_frame_rate"`
		RFrameRate   string `json:"r_frame_rate"`
		Duration     string `json:"duration"`
		NbReadFrames string `json:"nb_read_frames"`
		NbFrames     string `json:"nb_frames"`
		SideDataList []struct {
			SideDataType string  `json:"side_data_type"`
			Rotation     float64 `json:"rotation"`
		} `json:"side_data_list"`
		Tags map[string]string `json:"tags"`
	} `json:"streams"`
	Format struct {
		Duration string `json:"duration"`
	} `json:"format"`
}

// maxSide bounds any dimension the parser accepts.
const maxSide = 1 << 16

// parseProbe reads ffprobe's JSON for one selected video stream. counted
// says whether nb_read_frames must be present.
func parseProbe(data []byte, counted bool) (Info, error) {
	var p probeJSON
	if err := json.Unmarshal(data, &p); err != nil {
		return Info{}, fmt.Errorf("ffprobe output: %v: %w", err, ErrCorrupt)
	}
	if len(p.Streams) == 0 {
		return Info{}, fmt.Errorf("no video stream: %w", ErrUnsupported)
	}
	s := p.Streams[0]
	if s.CodecType != "" && s.CodecType != "video" {
		return Info{}, fmt.Errorf("stream 0 is %q: %w", s.CodecType, ErrUnsupported)
	}
	if s.Width <= 0 || s.Height <= 0 || s.Width > maxSide || s.Height > maxSide {
		return Info{}, fmt.Errorf("frame size %dx%d: %w", s.Width, s.Height, ErrCorrupt)
	}
	info := Info{Codec: s.CodecName, Width: s.Width, Height: s.Height}
	info.FPS = parseRate(s.AvgFrameRate)
	if info.FPS == 0 {
		info.FPS = parseRate(s.RFrameRate)
	}
	for _, sd := range s.SideDataList {
		if sd.SideDataType == "Display Matrix" {
			info.Rotation = normRotation(-sd.Rotation)
		}
	}
	if info.Rotation == 0 && s.Tags != nil {
		if r, err := strconv.ParseFloat(s.Tags["rotate"], 64); err == nil {
			info.Rotation = normRotation(r)
		}
	}
	if info.Rotation == 90 || info.Rotation == 270 {
		info.Width, info.Height = info.Height, info.Width
	}
	info.Duration = parseSeconds(p.Format.Duration)
	if info.Duration == 0 {
		info.Duration = parseSeconds(s.Duration)
	}
	if n, err := strconv.Atoi(s.NbFrames); err == nil && n > 0 {
		info.DeclaredFrames = n
	}
	if counted {
		n, err := strconv.Atoi(s.NbReadFrames)
		if err != nil || n < 0 {
			return Info{}, fmt.Errorf("frame count %q: %w", s.NbReadFrames, ErrCorrupt)
		}
		info.Frames = n
	}
	return info, nil
}

// normRotation maps an angle in degrees (any sign) to 0, 90, 180 or 270; angles that are not multiples of 90 give 0
// (FFmpeg does not rotate them either).
func normRotation(deg float64) int {
	if math.IsNaN(deg) || math.IsInf(deg, 0) || math.Abs(deg) > 1e6 {
		return 0
	}
	r := math.Mod(math.Round(deg), 360)
	if r < 0 {
		r += 360
	}
	switch int(r) {
	case 90, 180, 270:
		return int(r)
	}
	return 0
}

// parseRate parses an FFmpeg rational "num/den"; 0 when unknown or invalid.
func parseRate(s string) float64 {
	num, den, ok := strings.Cut(s, "/")
	if !ok {
		return 0
	}
	n, err1 := strconv.ParseInt(num, 10, 64)
	d, err2 := strconv.ParseInt(den, 10, 64)
	if err1 != nil || err2 != nil || n <= 0 || d <= 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// parseSeconds parses a duration in seconds; 0 when absent ("N/A") or invalid.
func parseSeconds(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0
	}
	return v
}
