package controllers

import "k8s.io/apimachinery/pkg/api/resource"

// mustQuantity parses a constant quantity.
func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }
