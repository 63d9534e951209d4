package operator

import (
	"sort"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func sortStrings(s []string) []string {
	sort.Strings(s)
	return s
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }

type metav1OwnerRef = metav1.OwnerReference

func conditionsOf(cs []metav1.Condition) string {
	var s string
	for _, c := range cs {
		s += c.Type + "=" + string(c.Status) + "(" + c.Reason + ": " + c.Message + ") "
	}
	return s
}
