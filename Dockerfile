# syntax=docker/dockerfile:1
#
# mmgate: the multimodal gateway, with its reference worker for the demo model.
#
#   docker build -t mmgate .
#   docker run --rm -p 8080:8080 --shm-size=2g mmgate
#
# The build stage installs its dependencies with scripts/setup.sh, the same
# script CI runs, so the image builds with exactly what the tests ran with
# (libjpeg-turbo and libwebp, so decoded pixels match Pillow's).

ARG GO_IMAGE=golang:1.26-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${GO_IMAGE} AS build
WORKDIR /src
# Dependencies first: this layer stays cached while only sources change.
COPY go.mod go.sum ./
COPY scripts/setup.sh scripts/setup.sh
RUN ./scripts/setup.sh
COPY . .
ARG VERSION=0.1.0-dev
RUN go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/mmgate ./cmd/mmgate \
 && /out/mmgate version

FROM ${RUNTIME_IMAGE}
# The shared libraries the cgo decoders link (libjpeg-turbo, libwebp) and
# ffmpeg for video; ca-certificates for https media URLs and for grpcs://
# workers verified against the system roots.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libturbojpeg0 libjpeg62-turbo libwebp7 libwebpdemux2 ffmpeg ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 mmgate \
 && useradd --system --uid 10001 --gid mmgate --home-dir /nonexistent --shell /usr/sbin/nologin mmgate
COPY --from=build /out/mmgate /usr/local/bin/mmgate
USER 10001:10001
EXPOSE 8080
# SIGTERM (docker stop, Kubernetes) drains in-flight requests for
# --shutdown-timeout (30 s): give the container a longer stop grace period.
STOPSIGNAL SIGTERM
ENTRYPOINT ["mmgate"]
CMD ["serve", "--embedded-worker", "--listen", "0.0.0.0:8080"]
