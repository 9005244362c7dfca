# The converter alone, for other images to copy:
#
#   docker build --build-arg VERSION=v0.1.0 -t sse-dialog-convert:v0.1.0 .
#
#   # in a benchmark image's Dockerfile:
#   COPY --from=sse-dialog-convert:v0.1.0 /usr/local/bin/sse-dialog-convert /usr/local/bin/
#
# The binary is static (CGO_ENABLED=0), built as make release builds it, so
# it runs in any image, with or without libc.
FROM golang:1.26 AS build
ARG VERSION=dev
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -buildid= -X main.version=${VERSION}" \
      -o /out/sse-dialog-convert ./cmd/sse-dialog-convert

FROM scratch
COPY --from=build /out/sse-dialog-convert /usr/local/bin/sse-dialog-convert
ENTRYPOINT ["/usr/local/bin/sse-dialog-convert"]
