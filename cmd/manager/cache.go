package main

import "sigs.k8s.io/controller-runtime/pkg/cache"

type cacheConfig = cache.Config
