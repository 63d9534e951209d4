package enginemetrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Serve serves the set's /metrics on addr until ctx ends. It returns once
// the port is bound, so a port in use is an error the caller sees.
func (s *Set) Serve(ctx context.Context, addr string, log logr.Logger) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("metrics listener on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{ErrorLog: nil}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error(err, "metrics server stopped", "address", ln.Addr().String())
		}
	}()
	return ln.Addr().String(), nil
}

// Addr is where a rank serves: host and base plus the rank's index among
// the ranks on its machine, so ranks sharing a pod or host do not collide.
func Addr(host string, base, localRank int) string {
	return net.JoinHostPort(host, strconv.Itoa(base+localRank))
}
