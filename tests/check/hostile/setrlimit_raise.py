# Payload: raise the soft limits up to the hard ones (and the hard ones, if allowed).
import resource

with open(r"{record}", "a") as _f:
    for _name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_CORE"):
        _kind = getattr(resource, _name)
        _soft, _hard = resource.getrlimit(_kind)
        try:
            resource.setrlimit(_kind, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            _outcome = "raised"
        except (ValueError, OSError):
            _outcome = "refused"
        _f.write(f"{_name} {_soft} {_hard} {_outcome}\n")
