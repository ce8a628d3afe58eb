package server

// PoisonReleasedBodies makes s overwrite every pooled body buffer as soon as
// it is given back, for tests of the lifetime rule.
func PoisonReleasedBodies(s *Server) { s.bodies.poison = true }
