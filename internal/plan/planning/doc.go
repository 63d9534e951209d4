// Package planning makes a campaign's plan: it reads the database's
// manifest and every query (as the engine will), and cuts the queries into
// chunks. The search itself is validated by package search. The CLI's
// campaign plan and the operator's planning Job run it; the ledger stores
// what it makes.
package planning
