package stages

import "github.com/hylaflow/hylaflow/registry"

func registerGeneric(r *registry.Registry) error { return nil }
