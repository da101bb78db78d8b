# attrs compiles the methods of every class it builds; keep the code objects across starts (issue 18)
from kafkalite.utils import attrs_code_cache as _attrs_code_cache

_attrs_code_cache.install()
