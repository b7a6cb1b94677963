"""Stand-in for pydantic.BaseModel as KernelBench's KernelExecResult uses it: keyword construction
with class-level defaults (mutable defaults copied per instance)."""
import copy


class BaseModel:
    def __init__(self, **kwargs):
        fields = {}
        for klass in reversed(type(self).__mro__):
            fields.update(getattr(klass, "__annotations__", {}))
        for name in fields:
            if name in kwargs:
                value = kwargs.pop(name)
            else:
                value = copy.deepcopy(getattr(type(self), name, None))
            setattr(self, name, value)
        if kwargs:
            raise TypeError("unexpected fields: %s" % ", ".join(sorted(kwargs)))

    def model_dump(self):
        return dict(self.__dict__)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join("%s=%r" % kv for kv in self.__dict__.items()))
