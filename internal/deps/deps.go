// Package deps pins the project's module dependencies while the packages that
// use them are being written. It is removed once every dependency is imported
// by real code.
package deps

import (
	_ "github.com/ardanlabs/jinja"
	_ "github.com/dlclark/regexp2"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/zeebo/blake3"
	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/tiff"
	_ "golang.org/x/image/webp"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/sys/unix"
	_ "google.golang.org/grpc"
	_ "google.golang.org/protobuf/proto"
	_ "gopkg.in/yaml.v3"
)
