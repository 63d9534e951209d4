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
