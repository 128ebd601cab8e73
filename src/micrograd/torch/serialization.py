"""save/load in PyTorch's own file format, so weights move both ways with real PyTorch.

The format (torch.save since 1.6) is a zip archive:

    archive/data.pkl      a pickle (protocol 2) of the object; each tensor is
                          torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
                          requires_grad, hooks), its storage a *persistent id*
                          ("storage", torch.FloatStorage, "0", "cpu", numel)
    archive/data/0, 1...  the raw bytes of each storage
    archive/byteorder     "little";  archive/version  "3"

Loading never calls what a file names: the unpickler resolves only the handful of globals
above (to micrograd functions that build arrays), so a hostile pickle is refused with an
error, not run. Neither torch nor the pickle's own globals are imported.
"""

from __future__ import annotations

import collections
import contextlib
import io
import os
import pickle
import struct
import sys
import zipfile
import zlib
from typing import IO, Any, ClassVar, NoReturn, Union

import numpy as np

import micrograd.tensors as _tensors
from micrograd.tensors import Tensor
from micrograd.tensors.nn import Parameter

__all__ = ["save", "load"]

FileLike = Union[str, "os.PathLike[str]", IO[bytes]]

# storage class names in torch  <->  numpy dtypes
_STORAGE_DTYPES: dict[str, np.dtype] = {
    "DoubleStorage": np.dtype(np.float64),
    "FloatStorage": np.dtype(np.float32),
    "HalfStorage": np.dtype(np.float16),
    "LongStorage": np.dtype(np.int64),
    "IntStorage": np.dtype(np.int32),
    "ShortStorage": np.dtype(np.int16),
    "CharStorage": np.dtype(np.int8),
    "ByteStorage": np.dtype(np.uint8),
    "BoolStorage": np.dtype(np.bool_),
}
_STORAGE_NAMES = {dtype: name for name, dtype in _STORAGE_DTYPES.items()}
_ARCHIVE = "archive"
_ALIGNMENT = 64  # torch aligns storages to 64 bytes in the zip (for mmap=True loading)


class _TorchGlobal:
    """A stand-in for a torch global (a function or class) that the pickle must name but
    that we neither have nor import: pickled as the GLOBAL opcode `module.name`."""

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, *args: Any) -> Any:  # never called: the pickler needs a callable
        raise RuntimeError(f"{self.module}.{self.name} is a stand-in for pickling")


_REBUILD_TENSOR = _TorchGlobal("torch._utils", "_rebuild_tensor_v2")


class _Storage:
    """One storage to write: a flat array whose bytes go to archive/data/<key>."""

    def __init__(self, key: str, flat: np.ndarray):
        self.key, self.flat = key, flat


# The pure-Python pickler (not the C one): only it lets a subclass write raw GLOBAL opcodes.
# typeshed does not describe it, hence Any.
_PurePythonPickler: Any = pickle._Pickler


class _TorchPickler(_PurePythonPickler):
    def __init__(self, file: IO[bytes]):
        super().__init__(file, protocol=2)
        self.storages: dict[int, _Storage] = {}  # id(base array) -> storage
        self._keep: list[Any] = []  # keeps bases alive so their ids stay unique

    def persistent_id(self, obj: Any) -> Any:
        if isinstance(obj, _Storage):
            storage_type = _TorchGlobal("torch", _STORAGE_NAMES[obj.flat.dtype])
            return ("storage", storage_type, obj.key, "cpu", obj.flat.size)
        return None

    def save(self, obj: Any, save_persistent_id: bool = True) -> None:
        if isinstance(obj, _TorchGlobal):
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
            return
        if isinstance(obj, (Tensor, np.ndarray)):
            self._save_tensor(obj)
            return
        if isinstance(obj, np.generic):  # numpy scalars are saved as Python numbers
            obj = obj.item()
        if not (isinstance(obj, _SAVEABLE) or obj is collections.OrderedDict):
            raise TypeError(
                f"micrograd.torch.save saves tensors, numpy arrays, dicts, lists, tuples, "
                f"numbers, strings and None; got {type(obj).__name__}"
                + (" (save model.state_dict() instead of the model)"
                   if hasattr(obj, "state_dict") else ""))
        super().save(obj, save_persistent_id)

    def _save_tensor(self, obj: Tensor | np.ndarray) -> None:
        memo = self.memo.get(id(obj))
        if memo is not None:  # the same tensor twice: one object when loaded
            self.write(self.get(memo[0]))
            return
        array = obj._array if isinstance(obj, Tensor) else obj
        if array.dtype not in _STORAGE_NAMES:
            raise TypeError(f"micrograd.torch.save cannot save dtype {array.dtype}")
        storage, offset, strides = self._storage_of(array)
        requires_grad = bool(isinstance(obj, Tensor) and obj.requires_grad)
        args: tuple[Any, ...] = (storage, offset, tuple(array.shape), strides, requires_grad,
                                 collections.OrderedDict())
        self.save_reduce(_REBUILD_TENSOR, args, obj=obj)

    def _storage_of(self, array: np.ndarray) -> tuple[_Storage, int, tuple[int, ...]]:
        """The storage holding `array`, its offset and strides in elements: a view shares
        its base's storage (as torch keeps views); anything numpy can't describe that way
        (negative strides, a base of another dtype) is saved as a contiguous copy."""
        root = array
        while isinstance(root.base, np.ndarray):
            root = root.base
        itemsize = array.itemsize
        if (root is not array and root.dtype == array.dtype and root.flags.c_contiguous
                and all(s >= 0 and s % itemsize == 0 for s in array.strides)):
            byte_offset = array.ctypes.data - root.ctypes.data
            if byte_offset % itemsize == 0:
                return (self._storage_for(root), byte_offset // itemsize,
                        tuple(s // itemsize for s in array.strides))
        flat = array if array.flags.c_contiguous else np.ascontiguousarray(array)
        return self._storage_for(flat), 0, _contiguous_strides(flat.shape)

    def _storage_for(self, base: np.ndarray) -> _Storage:
        found = self.storages.get(id(base))
        if found is None:
            found = _Storage(str(len(self.storages)), base.reshape(-1))
            self.storages[id(base)] = found
            self._keep.append(base)
        return found


_SAVEABLE = (dict, list, tuple, str, bytes, int, float, bool, complex, type(None), _Storage)


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _write_aligned(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    """Store `data` uncompressed with its first byte on a 64-byte boundary, as torch does
    (padding goes into the local header's extra field)."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    fp = archive.fp
    header_start = fp.tell() if fp is not None and hasattr(fp, "tell") else 0
    header_size = 30 + len(name.encode("utf-8"))
    pad = -(header_start + header_size + 4) % _ALIGNMENT
    info.extra = b"FB" + pad.to_bytes(2, "little") + b"Z" * pad
    archive.writestr(info, data)


def save(obj: Any, f: FileLike, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True) -> None:
    """Write obj (tensors, state dicts, dicts/lists/tuples of them, numbers) to a file or
    file-like object in PyTorch's format: torch.load reads it, and so does load()."""
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("micrograd.torch.save writes only the zip format "
                                  "(_use_new_zipfile_serialization=True)")
    if pickle_protocol != 2:
        raise NotImplementedError(f"micrograd.torch.save writes pickle protocol 2, as torch "
                                  f"does by default; got pickle_protocol={pickle_protocol}")
    buffer = io.BytesIO()
    pickler = _TorchPickler(buffer)
    pickler.dump(obj)
    with _opened(f, "wb") as target, zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as archive:
        _write_aligned(archive, f"{_ARCHIVE}/data.pkl", buffer.getvalue())
        _write_aligned(archive, f"{_ARCHIVE}/byteorder", sys.byteorder.encode())
        for storage in pickler.storages.values():
            _write_aligned(archive, f"{_ARCHIVE}/data/{storage.key}",
                           storage.flat.tobytes())
        _write_aligned(archive, f"{_ARCHIVE}/version", b"3\n")


def _opened(f: FileLike, mode: str) -> contextlib.AbstractContextManager[IO[bytes]]:
    """A path is opened here and closed after; a file object the caller gave stays open."""
    if isinstance(f, (str, os.PathLike)):
        return open(f, mode)
    return contextlib.nullcontext(f)


# --- loading ---------------------------------------------------------------------------


def _rebuild_tensor(storage: np.ndarray, offset: int, size: tuple, stride: tuple,
                    requires_grad: bool, hooks: Any = None, metadata: Any = None) -> Tensor:
    """torch._utils._rebuild_tensor_v2: a view of the storage (views keep sharing memory)."""
    itemsize = storage.itemsize
    if (len(size) != len(stride) or offset < 0
            or any(not isinstance(n, int) or n < 0 for n in (*size, *stride))):
        raise pickle.UnpicklingError(f"bad tensor layout: size {size}, stride {stride}")
    if all(size):
        extent = offset + sum((n - 1) * s for n, s in zip(size, stride, strict=True)) + 1
    else:
        extent = 0
    if extent > storage.size:
        raise pickle.UnpicklingError(f"tensor of size {size} and stride {stride} at offset "
                                     f"{offset} does not fit its storage of {storage.size}")
    array = np.lib.stride_tricks.as_strided(
        storage[offset:], shape=tuple(size), strides=tuple(s * itemsize for s in stride))
    t = _tensors.tensor(0.0)
    t.data = array
    if requires_grad:
        t.requires_grad = True
    return t


def _rebuild_parameter(data: Tensor, requires_grad: bool, hooks: Any = None) -> Tensor:
    if not isinstance(data, Tensor):
        raise pickle.UnpicklingError(f"_rebuild_parameter expects a tensor, got "
                                     f"{type(data).__name__}")
    return Parameter(data, bool(requires_grad))


class _StorageType:
    """torch.FloatStorage & co. as a file names them: made afresh for every load, so
    nothing one file does to it can reach another load."""

    def __init__(self, dtype: np.dtype):
        self.dtype = dtype


# Decompressed bytes any one entry may have: torch.save stores every entry uncompressed
# (checked against the file's size instead), so only a hand-made archive compresses, and
# a small compressed entry must not be able to claim gigabytes.
MAX_INFLATED_ENTRY = 256 * 2**20
_MAX_PICKLE = 64 * 2**20  # data.pkl: a pickle of containers, never the tensor bytes


def _read_entry(archive: zipfile.ZipFile, name: str, file_size: int,
                expected: int | None, limit: int) -> bytes:
    """The bytes of one entry, after checking what its header claims against what the
    file can hold: nothing is decompressed or allocated before those checks pass."""
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise pickle.UnpicklingError(f"the archive has no entry {name!r}") from None
    if expected is not None and info.file_size != expected:
        raise pickle.UnpicklingError(f"{name} holds {info.file_size} bytes, the pickle "
                                     f"expects {expected}")
    if info.compress_size > file_size:
        raise pickle.UnpicklingError(f"{name} claims {info.compress_size} bytes, more than "
                                     f"the whole file ({file_size})")
    if info.compress_type == zipfile.ZIP_STORED:
        if info.file_size != info.compress_size:
            raise pickle.UnpicklingError(f"{name} is stored uncompressed but claims "
                                         f"{info.file_size} bytes in {info.compress_size}")
    elif info.file_size > limit:
        raise pickle.UnpicklingError(f"{name} would decompress to {info.file_size} bytes, "
                                     f"past the bound of {limit}")
    with archive.open(info) as entry:
        raw = entry.read(info.file_size)  # zipfile stops at the header's size
    if len(raw) != info.file_size:
        raise pickle.UnpicklingError(f"{name} is truncated: {len(raw)} of "
                                     f"{info.file_size} bytes")
    return raw


def _refuse(what: str) -> NoReturn:
    raise pickle.UnpicklingError(f"refusing to load {what}: micrograd.torch.load only loads "
                                 "tensors, state dicts, dicts, lists, tuples, numbers and "
                                 "strings (weights_only), and never runs code a file names")


# The pure-Python unpickler, whose opcodes can be replaced one by one (as torch's
# weights_only unpickler restricts its own). typeshed does not describe it, hence Any.
_PurePythonUnpickler: Any = pickle._Unpickler


class _RestrictedUnpickler(_PurePythonUnpickler):
    """An unpickler that can build only tensors, parameters, OrderedDicts and plain data.

    The globals a file may name are fresh per load (storage types) or functions that make
    new objects; and the opcodes that would let a file change an object it did not create
    -- BUILD (setattr/__setstate__ on whatever is on the stack: a function's __defaults__,
    a storage type's dtype) and the object-making ones (NEWOBJ, OBJ, INST, EXT) -- are
    refused, as torch's weights_only unpickler refuses them.
    """

    dispatch: ClassVar[dict[int, Any]] = dict(_PurePythonUnpickler.dispatch)

    def __init__(self, file: IO[bytes], archive: zipfile.ZipFile, prefix: str, swap: bool,
                 file_size: int):
        super().__init__(file)
        self.archive, self.prefix, self.swap = archive, prefix, swap
        self.file_size = file_size
        self.loaded: dict[str, np.ndarray] = {}
        self.allowed: dict[tuple[str, str], Any] = {
            ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor,
            ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
            ("collections", "OrderedDict"): collections.OrderedDict,
            **{("torch", name): _StorageType(dtype) for name, dtype in _STORAGE_DTYPES.items()},
        }
        self.callables = {id(_rebuild_tensor), id(_rebuild_parameter),
                          id(collections.OrderedDict)}

    def find_class(self, module: str, name: str) -> Any:
        found = self.allowed.get((str(module), str(name)))
        if found is None:
            _refuse(f"{module}.{name}")
        return found

    def load_reduce(self) -> None:
        args = self.stack.pop()
        function = self.stack[-1]
        if id(function) not in self.callables or not isinstance(args, tuple):
            _refuse(f"a call of {type(function).__name__}")
        self.stack[-1] = function(*args)

    def load_build(self) -> None:
        state = self.stack.pop()
        target = self.stack[-1]
        if type(target) is collections.OrderedDict and isinstance(state, dict) and all(
                isinstance(k, str) for k in state):
            target.__dict__.update(state)  # a fresh OrderedDict's own attributes, as torch
            return
        _refuse(f"a change of state of {type(target).__name__}")

    def load_object_making(self) -> None:
        _refuse("an object made by its class (NEWOBJ/OBJ/INST/EXT opcodes)")

    dispatch[pickle.REDUCE[0]] = load_reduce
    dispatch[pickle.BUILD[0]] = load_build
    for _opcode in (pickle.NEWOBJ, pickle.NEWOBJ_EX, pickle.OBJ, pickle.INST, pickle.EXT1,
                    pickle.EXT2, pickle.EXT4, pickle.NEXT_BUFFER, pickle.READONLY_BUFFER):
        dispatch[_opcode[0]] = load_object_making
    del _opcode

    def persistent_load(self, pid: Any) -> np.ndarray:
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"
                and isinstance(pid[1], _StorageType)):
            raise pickle.UnpicklingError(f"unsupported persistent id in the file: {pid!r}")
        _, storage_type, key, _location, numel = pid
        key = str(key)
        if key not in self.loaded:
            if isinstance(numel, bool) or not isinstance(numel, int) or numel < 0:
                raise pickle.UnpicklingError(f"storage {key!r} has a bad size {numel!r}")
            dtype = storage_type.dtype
            raw = _read_entry(self.archive, f"{self.prefix}/data/{key}", self.file_size,
                              numel * dtype.itemsize, MAX_INFLATED_ENTRY)
            array = np.frombuffer(raw, dtype=dtype).copy()  # writable, owned
            if self.swap:
                array = array.byteswap()
            self.loaded[key] = array
        return self.loaded[key]


def _size_of(source: IO[bytes]) -> int:
    position = source.tell()
    size = source.seek(0, os.SEEK_END)
    source.seek(position)
    return size


# what a damaged or crafted archive makes zipfile, the unpickler or our checks raise
_DAMAGED = (zipfile.BadZipFile, pickle.UnpicklingError, KeyError, ValueError, TypeError,
            IndexError, AttributeError, EOFError, OverflowError, UnicodeDecodeError,
            RecursionError, NotImplementedError, struct.error, zlib.error)


def load(f: FileLike, map_location: Any = None, pickle_module: Any = None, *,
         weights_only: bool | None = True, mmap: Any = None, **kwargs: Any) -> Any:
    """Read what torch.save (or save()) wrote: tensors come back as micrograd Tensors, on the
    CPU. Only tensors and plain containers are accepted, whatever weights_only says: any
    other object in the file raises pickle.UnpicklingError instead of being created."""
    if (map_location not in (None, "cpu") and str(map_location) != "cpu"
            and not callable(map_location) and not isinstance(map_location, dict)):
        _tensors.tensor(0.0).to(device=map_location)  # raises for cuda and the like
    with _opened(f, "rb") as source:
        if not zipfile.is_zipfile(source):
            raise pickle.UnpicklingError(
                "not a zip archive: micrograd.torch.load reads the format torch.save writes "
                "since PyTorch 1.6 (the older tar/pickle format is not supported)")
        try:
            return _load_archive(source)
        except _DAMAGED as error:
            text = str(error) if isinstance(error, pickle.UnpicklingError) else (
                f"a damaged or crafted file: {type(error).__name__}: {error}")
            raise pickle.UnpicklingError(_one_line(text)) from None


def _one_line(text: str) -> str:
    """Errors about a file stay one line, however long what the file put in them."""
    line = " ".join(text.split())
    return line if len(line) <= 300 else line[:297] + "..."


def _load_archive(source: IO[bytes]) -> Any:
    source.seek(0)
    file_size = _size_of(source)
    with zipfile.ZipFile(source) as archive:
        names = archive.namelist()
        pickles = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
        if not pickles:
            raise pickle.UnpicklingError("the archive has no <name>/data.pkl: not a file "
                                         "written by torch.save")
        prefix = pickles[0].split("/")[0]
        order: str = sys.byteorder
        if f"{prefix}/byteorder" in names:
            order = _read_entry(archive, f"{prefix}/byteorder", file_size, None,
                                16).decode().strip()
        if order not in ("little", "big"):
            raise pickle.UnpicklingError(f"unknown byte order {order[:20]!r}")
        data = _read_entry(archive, pickles[0], file_size, None, _MAX_PICKLE)
        unpickler = _RestrictedUnpickler(io.BytesIO(data), archive, prefix,
                                         order != sys.byteorder, file_size)
        return unpickler.load()
