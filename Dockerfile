# The blastfleet operator image (cmd/manager): a static Go binary on
# distroless, running as UID 65532.
#
#   docker build -t ghcr.io/blastfleet/operator:v0.1.0 --build-arg VERSION=v0.1.0 .
#
# Base images are pinned by version tag; distroless publishes no version
# tags, so its (rolling) nonroot tag is pinned by digest. Refresh a digest
# with: crane digest gcr.io/distroless/static-debian12:nonroot
#
# Both bases are build arguments whose defaults are those pins, so machines
# without a registry build the same file against bases made from Debian
# packages (hack/build-images.sh, docs/development.md).

# Go as in go.mod; Debian 12 like the worker image.
ARG GO_IMAGE=golang:1.26.8-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot@sha256:d093aa3e30dbadd3efe1310db061a14da60299baff8450a17fe0ccc514a16639

FROM ${GO_IMAGE} AS builder
WORKDIR /src
# Modules first, so source edits reuse the download layer.
COPY go.mod go.sum ./
RUN go mod download
COPY api/ api/
COPY cmd/ cmd/
COPY controllers/ controllers/
COPY internal/ internal/
ARG VERSION=dev
# Static, no cgo: the operator never links MPI (docs/development.md).
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/manager ./cmd/manager

FROM ${RUNTIME_IMAGE}
LABEL org.opencontainers.image.source="https://github.com/blastfleet/blastfleet" \
      org.opencontainers.image.description="blastfleet operator" \
      org.opencontainers.image.licenses="Apache-2.0"
WORKDIR /
COPY --from=builder /out/manager /manager
# distroless "nonroot"; numeric so the kubelet can verify runAsNonRoot.
USER 65532:65532
ENTRYPOINT ["/manager"]
