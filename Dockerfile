# syntax=docker.io/docker/dockerfile:1
#
# Two stages: a pinned Go toolchain builds a static binary; distroless runs
# it as a non-root user with no shell. scripts/test runs the line marked
# "build-line" below verbatim (with /out replaced by a temporary directory),
# so a broken build step fails the tests even where Docker is unavailable.
#
# Base images are named in full (registry host included): Podman and buildah
# refuse a short name such as golang:… unless the host configures an
# unqualified-search registry, which Debian does not.

FROM docker.io/library/golang:1.26.8-bookworm AS build
WORKDIR /src
# Dependencies first, so source edits reuse the module download layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
# build-line: the one definition of how the binary is built.
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/gateway ./gateway/cmd/gateway

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/gateway /gateway
USER nonroot:nonroot
EXPOSE 9000
# The binary probes its own /healthz: distroless has no curl or shell.
HEALTHCHECK --interval=10s --timeout=5s --start-period=5s --retries=3 CMD ["/gateway","healthcheck"]
ENTRYPOINT ["/gateway"]
