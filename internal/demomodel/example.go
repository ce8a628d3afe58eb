package demomodel

import (
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// PrintExample writes a sample picture (sample.jpg) into dir and prints on
// w a curl command that sends it to the gateway listening on listenAddr
// (HOST:PORT; a wildcard host becomes 127.0.0.1) over HTTPS when https is
// set, and the command that reproduces the fingerprint the embedded worker
// answers with. Nothing is printed when the picture cannot be written.
func PrintExample(w io.Writer, listenAddr string, https bool, dir string) {
	path := filepath.Join(dir, "sample.jpg")
	if err := writeSample(path); err != nil {
		return
	}
	host := listenAddr
	if strings.HasPrefix(host, "0.0.0.0:") || strings.HasPrefix(host, ":") {
		host = "127.0.0.1:" + host[strings.LastIndexByte(host, ':')+1:]
	}
	scheme := "http"
	if https {
		scheme = "https"
	}
	fmt.Fprintf(w, `
mmgate is serving the demo model with its embedded reference worker. Try:

  curl -s %s://%s/v1/chat/completions -H 'Content-Type: application/json' \
    -d '{"model": "qwen3-vl", "max_tokens": 200, "messages": [{"role": "user", "content": [
          {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,'"$(base64 -w0 %s)"'"}},
          {"type": "text", "text": "Describe this image."}]}]}'

The worker answers with what it received: the image's grid, dtype, transport (inline or
shm) and a fingerprint of its pixel_values, which `+"`mmgate preprocess --model qwen3-vl --dtype bfloat16 --hash %s`"+` reproduces.

`, scheme, host, path, path)
}

// writeSample draws a 320×240 picture (colour bars over a gradient) as JPEG.
func writeSample(path string) error {
	img := image.NewRGBA(image.Rect(0, 0, 320, 240))
	bars := []color.RGBA{{230, 60, 50, 255}, {250, 190, 40, 255}, {70, 170, 80, 255}, {40, 120, 220, 255}, {140, 70, 200, 255}}
	for y := 0; y < 240; y++ {
		for x := 0; x < 320; x++ {
			c := color.RGBA{uint8(x * 255 / 319), uint8(y * 255 / 239), 128, 255}
			if y > 60 && y < 180 {
				c = bars[x*len(bars)/320]
			}
			img.Set(x, y, c)
		}
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := jpeg.Encode(out, img, &jpeg.Options{Quality: 90}); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
