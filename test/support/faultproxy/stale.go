package faultproxy

import (
	"bytes"
	"io"
	"net/http"
	"time"
)

// listing is one answer to a LIST, kept to be served again, stale.
type listing struct {
	at     time.Time
	header http.Header
	body   []byte
}

// listKey names a LIST by what it asks: the same bucket, prefix, page.
func listKey(r *http.Request) string { return r.URL.Path + "?" + r.URL.RawQuery }

// keepListing records a LIST's answer (a 200), while StaleList is on, and
// gives the client the same bytes.
func (p *Proxy) keepListing(resp *http.Response) error {
	p.mu.Lock()
	on := p.plan.faults.StaleList > 0 && p.opOf(resp.Request) == opList
	p.mu.Unlock()
	if !on || resp.StatusCode != http.StatusOK {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	k := listKey(resp.Request)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.listings[k] = append(p.pruned(k), listing{at: time.Now(), header: resp.Header.Clone(), body: body})
	return nil
}

// pruned drops the kept answers to LIST k older than MaxStale. The caller
// holds the proxy's lock.
func (p *Proxy) pruned(k string) []listing {
	ls := p.listings[k]
	cut := time.Now().Add(-p.plan.faults.maxStale())
	i := 0
	for i < len(ls) && ls[i].at.Before(cut) {
		i++
	}
	return ls[i:]
}

// serveStale answers a LIST with the oldest kept answer to it, or
// forwards it when none is kept. It counts whether that answer differs
// from the latest one kept: then the client saw the store as it was
// before writes that an answer since showed.
func (p *Proxy) serveStale(w http.ResponseWriter, r *http.Request) bool {
	k := listKey(r)
	p.mu.Lock()
	ls := p.pruned(k)
	p.listings[k] = ls
	if len(ls) == 0 {
		p.mu.Unlock()
		return false
	}
	old, latest := ls[0], ls[len(ls)-1]
	p.counts.StaleLists++
	if !bytes.Equal(old.body, latest.body) {
		p.counts.StaleBehind++
	}
	p.mu.Unlock()
	for name, v := range old.header {
		w.Header()[name] = v
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(old.body)
	return true
}
