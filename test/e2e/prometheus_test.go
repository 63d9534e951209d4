package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// checkPrometheus: the stack's Prometheus scrapes the operator (up) and
// has the running MPIJob's ranks as engine targets, from the file_sd
// file the supervisor keeps, and scrapes them: a rank is up once its
// /metrics answered (they linger a scrape interval after the run).
func (s *stack) checkPrometheus(t *testing.T, mpijob string) {
	t.Helper()
	url := s.state(t).Prometheus + "/api/v1/targets"
	waitFor(t, 30*time.Second, "Prometheus scraping the operator and "+mpijob+"'s ranks", func() (bool, string) {
		resp, err := http.Get(url)
		if err != nil {
			return false, err.Error()
		}
		defer resp.Body.Close()
		var body struct {
			Data struct {
				ActiveTargets []struct {
					Labels    map[string]string `json:"labels"`
					ScrapeURL string            `json:"scrapeUrl"`
					Health    string            `json:"health"`
				} `json:"activeTargets"`
			} `json:"data"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			return false, err.Error()
		}
		operatorUp, ranks, ranksUp := false, 0, 0
		for _, tg := range body.Data.ActiveTargets {
			switch tg.Labels["job"] {
			case "blastfleet-operator":
				operatorUp = tg.Health == "up"
			case "blastfleet-engine":
				if tg.Labels["mpijob"] == mpijob {
					ranks++
					if tg.Health == "up" {
						ranksUp++
					}
				}
			}
		}
		// campaignYAML's 2 workers of 1 slot, and the master.
		return operatorUp && ranks == 3 && ranksUp > 0, fmt.Sprintf("operator up: %v, %d engine targets of %s (%d up): %+v",
			operatorUp, ranks, mpijob, ranksUp, body.Data.ActiveTargets)
	})
}
