package faultproxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
)

// Proxy is a running fault-injecting proxy.
type Proxy struct {
	// URL is where clients reach it (http://127.0.0.1:port), Host its
	// host:port.
	URL, Host string

	target    *url.URL
	transport *http.Transport
	rp        *httputil.ReverseProxy
	srv       *http.Server
	served    chan error
	handlers  sync.WaitGroup

	mu       sync.Mutex
	plan     *plan
	counts   Counts
	closed   bool                 // no handler may start: Close waits for those running
	linkFree time.Time            // when the throttled link has sent all it booked
	s3       *minio.Client        // asks the server about preconditions (UseCredentials)
	listings map[string][]listing // answers to LISTs, oldest first, for StaleList
}

// Start listens on 127.0.0.1 (a free port) and proxies to target
// (http://host:port) with faults drawn from seed.
func Start(target string, seed uint64, f Faults) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("faultproxy: target %q: want http://host:port", target)
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listening: %w", err)
	}
	p := &Proxy{
		Host:      ln.Addr().String(),
		target:    u,
		listings:  map[string][]listing{},
		transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16, IdleConnTimeout: 30 * time.Second},
		served:    make(chan error, 1),
		plan:      newPlan(seed, f),
	}
	p.URL = "http://" + p.Host
	p.rp = &httputil.ReverseProxy{
		// The Host header stays the client's: it signed for it.
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = u.Scheme, u.Host
			pr.Out.Host = pr.In.Host
		},
		Transport:      p.transport,
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.errorHandler,
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go func() { p.served <- p.srv.Serve(ln) }()
	return p, nil
}

// SetFaults changes the rates from the next request on (the seeded
// sequence goes on); a new Bandwidth applies to responses already
// flowing too, so a test can make the server a hot spot mid-transfer.
func (p *Proxy) SetFaults(f Faults) error {
	if err := f.validate(); err != nil {
		return err
	}
	p.mu.Lock()
	p.plan.faults = f
	p.mu.Unlock()
	return nil
}

// Counts returns what the proxy did so far.
func (p *Proxy) Counts() Counts {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.counts
	c.LostWriteKeys = append([]string(nil), c.LostWriteKeys...)
	return c
}

func (p *Proxy) count(f func(*Counts)) {
	p.mu.Lock()
	f(&p.counts)
	p.mu.Unlock()
}

// Close stops listening, cuts every connection, waits for the handlers
// to return and closes the connections to the server.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	err := p.srv.Close()
	p.handlers.Wait()
	p.transport.CloseIdleConnections()
	if serr := <-p.served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

type ctxKey struct{}

// ServeHTTP decides the request's fate and carries it out.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		resetConn(w)
		return
	}
	p.handlers.Add(1)
	defer p.handlers.Done()
	p.counts.Requests++
	var d decision
	hit := p.plan.faults.Only == nil || p.plan.faults.Only(r)
	added := p.plan.faults.AddedLatency
	if hit {
		d = p.plan.nextFor(p.opOf(r))
	}
	p.mu.Unlock()
	tw := &throttled{ResponseWriter: w, p: p, ctx: r.Context()}
	if hit && added > 0 {
		tw.slowed = true
		p.count(func(c *Counts) { c.Slowed++ })
		if sleep(r.Context(), added) != nil {
			return
		}
	}
	if d.delay > 0 {
		p.count(func(c *Counts) { c.Delays++ })
		if sleep(r.Context(), d.delay) != nil {
			return
		}
	}
	switch d.kind {
	case burst:
		p.count(func(c *Counts) {
			if c.BurstAnswers++; d.starts {
				c.Bursts++
			}
		})
		s3Error(w, http.StatusServiceUnavailable, "SlowDown", "faultproxy: injected 5xx burst")
	case reset:
		p.count(func(c *Counts) { c.Resets++ })
		resetConn(w)
	case lostWrite:
		p.loseWrite(w, r)
	case staleList:
		if p.serveStale(w, r) {
			return
		}
		fallthrough // nothing kept to serve yet
	default:
		p.count(func(c *Counts) { c.Forwarded++ })
		var out http.ResponseWriter = w
		if hit {
			out = tw
		}
		p.rp.ServeHTTP(out, r.WithContext(context.WithValue(r.Context(), ctxKey{}, d.kind)))
	}
}

// modifyResponse drops the server's answer to a request fated to lose it:
// the server acted, the client will not know.
func (p *Proxy) modifyResponse(resp *http.Response) error {
	k, _ := resp.Request.Context().Value(ctxKey{}).(kind)
	if k != lostCut && k != lost5xx {
		return p.keepListing(resp)
	}
	conditional := resp.Request.Header.Get("If-None-Match") != "" || resp.Request.Header.Get("If-Match") != ""
	p.count(func(c *Counts) {
		if k == lostCut {
			c.LostCut++
		} else {
			c.Lost5xx++
		}
		if conditional {
			c.LostConditional++
		}
	})
	return errLost{k}
}

type errLost struct{ k kind }

func (errLost) Error() string { return "faultproxy: response lost on purpose" }

func (p *Proxy) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	var lost errLost
	switch {
	case errors.As(err, &lost) && lost.k == lostCut:
		resetConn(w)
	case errors.As(err, &lost):
		s3Error(w, http.StatusInternalServerError, "InternalError", "faultproxy: response lost after the server acted")
	default: // the server is down or cut us off: as a load balancer would say
		s3Error(w, http.StatusBadGateway, "BadGateway", "faultproxy: "+err.Error())
	}
}

// s3Error answers as S3 does, so clients parse and retry it.
func s3Error(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Connection", "close")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, code, msg)
}

// resetConn closes the client's connection with a TCP RST.
func resetConn(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
