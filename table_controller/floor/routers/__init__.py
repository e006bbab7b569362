"""The floor's endpoints, one module per resource (as api/routers/)."""
