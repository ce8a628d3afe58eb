package gateway

import (
	"cmp"
	"log/slog"
	"os/exec"

	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/media/fetch"
	"github.com/mmgate/mmgate/media/video"
)

// This file answers: where does media come from and what decodes it? The
// fetcher under the fetch policy, the image decoder under the pixel cap,
// and the video decoder when FFmpeg is installed.

// mediaStack is the media sources and decoders; video is nil without
// FFmpeg.
type mediaStack struct {
	images  *media.Decoder
	fetcher *fetch.Fetcher
	video   *video.Decoder
}

// newMedia builds the image decoder, the fetcher and, when FFmpeg is
// installed, the video decoder. The caller closes the fetcher.
func newMedia(o MediaOptions, version string, log *slog.Logger) (*mediaStack, error) {
	bg := [3]uint8(o.Background)
	dec, err := media.New(media.Options{Background: &bg, NoEXIF: o.NoEXIF, MaxPixels: o.MaxPixels})
	if err != nil {
		return nil, err
	}
	fetcher, err := fetch.New(fetch.Policy{
		AllowedHosts: o.AllowHosts, AllowedCIDRs: o.AllowCIDRs, FileRoots: o.FileRoots,
		MaxBytes: o.FetchMax, Timeout: o.FetchTimeout, MaxRedirects: cmp.Or(o.FetchRedirects, -1),
	}, fetch.Options{UserAgent: "mmgate/" + version})
	if err != nil {
		return nil, err
	}
	m := &mediaStack{images: dec, fetcher: fetcher}
	// Video needs FFmpeg; without it video parts are refused clearly.
	if _, lerr := exec.LookPath("ffmpeg"); lerr != nil {
		log.Warn("ffmpeg not found: video input is disabled")
		return m, nil
	}
	if m.video, err = video.New(video.Options{MaxBytes: o.VideoBytes, MaxDuration: o.VideoDuration, MaxFrames: o.VideoFrames}); err != nil {
		fetcher.Close()
		return nil, err
	}
	return m, nil
}
