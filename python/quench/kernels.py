"""Kernels for the estimators' `kernel=` parameter (docs/python.md, "Kernels"): one class per
kernel plugin, composed with + and * as scikit-learn's kernels are.

    from quench import Gaussian, Periodic, RationalQuadratic, White
    k = (Gaussian(67.0, amplitude=66.0**2)
         + Gaussian(90.0, amplitude=2.4**2) * Periodic(1.3, period=1.0, fixed=("amplitude",))
         + RationalQuadratic(1.2, alpha=0.78, amplitude=0.66**2)
         + Gaussian(0.134, amplitude=0.18**2) + White(0.19**2))
    GaussianProcessRegressor(kernel=k).fit(X, y).kernel_   # k with the learned values

Values are on their natural scale, in the units of the data the kernel sees. A kernel learns
every hyperparameter it can that is > 0, except those named in `fixed`; `bounds` narrows a
hyperparameter's search interval ({"period": (0.5, 2.0)}). `columns` (indices of X's columns)
restricts a kernel to those inputs. A kernel becomes the pipeline's `components.kernel` node
(to_yaml, with the input columns' names), its learned hyperparameters the `learn.parameters` paths (kernel.0.amplitude,
kernel.1.1.period, ...; learned_hyperparameters), and with_learned rebuilds it from a run's
learned values."""
import copy
import inspect
import json
import numbers
import re

import numpy as np


def column_name(index):
    """The name the estimators give column `index` of an X without column names (a DataFrame's
    names are kept) in the data they hand to quench."""
    return f"x{index}"


# Plain YAML scalars that read back as null, not as a string.
_YAML_NULLS = {"null", "~"}


def yaml_text(name):
    """A column name as a YAML scalar that reads back as that string: as it is when it is a
    plain identifier, else double-quoted (JSON's escapes, which YAML's double quotes read)."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and name.lower() not in _YAML_NULLS:
        return name
    return json.dumps(name, ensure_ascii=False)


def _input_names(features):
    """The input columns' names: `features` itself (a sequence of names) or, for a number of
    columns, column_name of each."""
    if isinstance(features, numbers.Integral) and not isinstance(features, bool):
        return [column_name(j) for j in range(int(features))]
    return [str(name) for name in features]


def _number(value):
    """A float as YAML text: the shortest text that reads back as the same double."""
    return repr(float(value))


def _plain(value):
    """A parameter value with arrays and tuples as lists of floats (for == and repr)."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return [float(v) for v in value]
    return value


class Kernel:
    """The algebra of kernels: k1 + k2 is a Sum, k1 * k2 a Product, and a number c in either
    stands for Constant(c). Sums of sums and products of products are flattened (unless the
    inner one has its own columns)."""

    def __add__(self, other):
        other = _as_kernel(other)
        return NotImplemented if other is None else Sum([self, other])

    def __radd__(self, other):
        other = _as_kernel(other)
        return NotImplemented if other is None else Sum([other, self])

    def __mul__(self, other):
        other = _as_kernel(other)
        return NotImplemented if other is None else Product([self, other])

    def __rmul__(self, other):
        other = _as_kernel(other)
        return NotImplemented if other is None else Product([other, self])

    def __eq__(self, other):
        return type(self) is type(other) and self._state() == other._state()

    __hash__ = None  # mutable, like a list

    def to_yaml(self, features):
        """The pipeline's kernel node for the input columns `features` (their names, or their
        number: then named x0, x1, ...): a one-line flow mapping for a kernel plugin, a block
        mapping for a sum or product, a block list for a kernel per class."""
        names = _input_names(features)
        return "\n".join(self._yaml_lines(names, len(names)))

    def _check_columns(self, names):
        """The names of the columns (indices into X's columns `names`) as a YAML list's items;
        ValueError for an index outside X's columns."""
        if len(self.columns) == 0:
            raise ValueError(f"{self!r}: columns is empty (None: every column)")
        for j in self.columns:
            index = isinstance(j, numbers.Integral) and not isinstance(j, bool)
            if not index or not 0 <= j < len(names):
                raise ValueError(f"{self!r}: column {j!r} is not a column index of X, which has "
                                 f"{len(names)} column(s)")
        return ", ".join(yaml_text(names[int(j)]) for j in self.columns)


def _as_kernel(value):
    """A kernel as itself, a real number c as Constant(c), anything else None."""
    if isinstance(value, Kernel):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return Constant(float(value))
    return None


class PluginKernel(Kernel):
    """A kernel plugin with its parameters. Subclasses declare `plugin` (its name), `learnable`
    (its hyperparameter blocks, in the plugin's order) and their parameters as keyword
    arguments of __init__, followed by columns, fixed and bounds."""

    plugin = None
    learnable = ()
    _options = ("columns", "fixed", "bounds")
    _absent_when_zero = ("bias", "noise")  # not written to the pipeline when 0

    def _init(self, arguments):
        """Sets the parameters of __init__ from its locals(), then the options."""
        for name in self._parameter_names():
            setattr(self, name, arguments[name])
        self._init_options(arguments["columns"], arguments["fixed"], arguments["bounds"])

    def _init_options(self, columns, fixed, bounds):
        self.columns = columns
        self.fixed = (fixed,) if isinstance(fixed, str) else tuple(fixed)
        self.bounds = bounds
        for name in list(self.fixed) + list(bounds or {}):
            if name not in self.learnable:
                raise ValueError(f"{type(self).__name__} has no hyperparameter '{name}' to fix "
                                 f"or bound; it has {', '.join(self.learnable)}")
        for name, (low, high) in (bounds or {}).items():
            if not 0 < low < high:
                raise ValueError(f"{type(self).__name__}: bounds of '{name}' must be "
                                 f"0 < low < high, got {(low, high)!r}")

    @classmethod
    def _parameter_names(cls):
        return [p for p in inspect.signature(cls.__init__).parameters
                if p != "self" and p not in cls._options]

    def parameters(self):
        """The plugin's parameters by name (their current values)."""
        return {name: getattr(self, name) for name in self._parameter_names()}

    def _state(self):
        return (type(self).__name__, {k: _plain(v) for k, v in self.parameters().items()},
                _plain(self.columns), self.fixed,
                {k: _plain(v) for k, v in (self.bounds or {}).items()})

    def _learned_blocks(self):
        """The hyperparameters learned: every learnable one > 0 not in `fixed`."""
        return [name for name in self.learnable if name not in self.fixed
                and np.all(np.asarray(getattr(self, name), dtype=float) > 0)]

    def learned_hyperparameters(self, path="kernel"):
        """{learn path: (low, high) bounds or None (the plugin's own)} of the hyperparameters
        a fit learns, in the plugin's order; `path` is this kernel's own path."""
        return {f"{path}.{name}": (tuple(self.bounds[name]) if self.bounds and name in self.bounds
                                   else None) for name in self._learned_blocks()}

    def with_learned(self, learned, path="kernel"):
        """A copy with the values of `learned` (a run's learned dict: path -> array) for the
        hyperparameters found there under `path`."""
        kernel = copy.deepcopy(self)
        for name in self.learnable:
            value = learned.get(f"{path}.{name}")
            if value is not None:
                value = [float(v) for v in np.atleast_1d(value)]
                setattr(kernel, name, value if name == "length_scales" else value[0])
        return kernel

    def _yaml_lines(self, inputs, dimension):
        fields = [f"plugin: {self.plugin}"]
        if self.columns is not None:
            names = self._check_columns(inputs)
            dimension = len(self.columns)
        for name, value in self.parameters().items():
            if name == "length_scales":
                scales = np.atleast_1d(np.asarray(value, dtype=float))
                if scales.ndim != 1 or (scales.size != 1 and scales.size != dimension):
                    raise ValueError(f"{self!r}: length_scales needs one number or {dimension} "
                                     f"(one per input column), got {scales.size}")
                scales = np.broadcast_to(scales, (dimension,))
                fields.append(f"length_scales: [{', '.join(map(_number, scales))}]")
            elif name in self._absent_when_zero and value == 0:
                continue  # absent is 0: no such block (a product refuses a noise block)
            else:
                fields.append(f"{name}: {_number(value)}")
        if self.columns is not None:
            fields.append(f"columns: [{names}]")
        return ["{" + ", ".join(fields) + "}"]

    def __repr__(self):
        defaults = inspect.signature(type(self).__init__).parameters
        shown = [f"{name}={_plain(value)!r}" for name, value in self.parameters().items()
                 if _plain(value) != defaults[name].default]
        if self.columns is not None:
            shown.append(f"columns={list(self.columns)!r}")
        if self.fixed:
            shown.append(f"fixed={self.fixed!r}")
        if self.bounds:
            shown.append(f"bounds={self.bounds!r}")
        return f"{type(self).__name__}({', '.join(shown)})"


class Gaussian(PluginKernel):
    """amplitude * exp(-1/2 sum_l (x_l - x'_l)^2 / length_scales_l^2) + bias, and `noise` added
    to the training Gram matrix's diagonal (plugin gaussian; scikit-learn's amplitude * RBF).
    length_scales: one number (the same for every column, each learned on its own: ARD) or one
    per column."""

    plugin = "gaussian"
    learnable = ("length_scales", "amplitude", "bias", "noise")

    def __init__(self, length_scales=1.0, amplitude=1.0, bias=0.0, noise=0.0, columns=None,
                 fixed=(), bounds=None):
        self._init(locals())


class Matern(PluginKernel):
    """amplitude * f_nu(r) + bias, r^2 = sum_l (x_l - x'_l)^2 / length_scales_l^2, nu 0.5, 1.5
    or 2.5 (not learned), plus `noise` on the training diagonal (plugin matern; scikit-learn's
    amplitude * Matern)."""

    plugin = "matern"
    learnable = ("length_scales", "amplitude", "bias", "noise")

    def __init__(self, length_scales=1.0, nu=1.5, amplitude=1.0, bias=0.0, noise=0.0,
                 columns=None, fixed=(), bounds=None):
        if nu not in (0.5, 1.5, 2.5):
            raise ValueError(f"Matern: nu must be 0.5, 1.5 or 2.5, got {nu!r}")
        self._init(locals())


class RationalQuadratic(PluginKernel):
    """amplitude * (1 + sum_l (x_l - x'_l)^2 / (2 alpha length_scales_l^2))^-alpha + bias, plus
    `noise` on the training diagonal (plugin rational_quadratic; scikit-learn's amplitude *
    RationalQuadratic)."""

    plugin = "rational_quadratic"
    learnable = ("length_scales", "amplitude", "bias", "noise", "alpha")

    def __init__(self, length_scales=1.0, alpha=1.0, amplitude=1.0, bias=0.0, noise=0.0,
                 columns=None, fixed=(), bounds=None):
        self._init(locals())


class Periodic(PluginKernel):
    """amplitude * exp(-2 sum_l sin^2(pi (x_l - x'_l) / period) / length_scales_l^2) + bias, plus
    `noise` on the training diagonal (plugin periodic; scikit-learn's amplitude *
    ExpSineSquared(length_scale, periodicity=period)). In a product with another kernel that
    has an amplitude, fix one of them: fixed=("amplitude",)."""

    plugin = "periodic"
    learnable = ("length_scales", "amplitude", "bias", "noise", "period")

    def __init__(self, length_scales=1.0, period=1.0, amplitude=1.0, bias=0.0, noise=0.0,
                 columns=None, fixed=(), bounds=None):
        self._init(locals())


class Constant(PluginKernel):
    """`value` everywhere (plugin constant; scikit-learn's ConstantKernel). c * k is
    Constant(c) * k."""

    plugin = "constant"
    learnable = ("value",)

    def __init__(self, value=1.0, columns=None, fixed=(), bounds=None):
        self._init(locals())


class White(PluginKernel):
    """`noise` on the diagonal of the training Gram matrix, 0 between distinct training rows
    and at new inputs (plugin white; scikit-learn's WhiteKernel). Not in a product."""

    plugin = "white"
    learnable = ("noise",)
    _absent_when_zero = ()

    def __init__(self, noise=1.0, columns=None, fixed=(), bounds=None):
        self._init(locals())


class Linear(PluginKernel):
    """sum_l x_l x'_l / length_scales_l^2 + bias, plus `noise` on the training diagonal (plugin
    linear; scikit-learn's DotProduct with sigma_0^2 = bias, for length_scales 1)."""

    plugin = "linear"
    learnable = ("length_scales", "bias", "noise")

    def __init__(self, length_scales=1.0, bias=0.0, noise=0.0, columns=None, fixed=(),
                 bounds=None):
        self._init(locals())


class Cauchy(PluginKernel):
    """amplitude / (1 + sum_l (x_l - x'_l)^2 / length_scales_l^2)^beta + bias, beta not
    learned, plus `noise` on the training diagonal (plugin cauchy, 001 App. B)."""

    plugin = "cauchy"
    learnable = ("length_scales", "amplitude", "bias", "noise")

    def __init__(self, length_scales=1.0, beta=1.0, amplitude=1.0, bias=0.0, noise=0.0,
                 columns=None, fixed=(), bounds=None):
        self._init(locals())


class InfiniteNet(PluginKernel):
    """The infinite neural network's arcsin covariance (003 eq 1) with input weights
    1/length_scales_l^2, amplitude, bias and `noise` on the training diagonal (plugin
    infinite_net)."""

    plugin = "infinite_net"
    learnable = ("length_scales", "amplitude", "bias", "noise")

    def __init__(self, length_scales=1.0, amplitude=1.0, bias=0.0, noise=0.0, columns=None,
                 fixed=(), bounds=None):
        self._init(locals())


class _Composite(Kernel):
    """A sum or product of kernels (`parts`), on `columns` of X if given (else on the columns
    its parent acts on). Part i's hyperparameters have the paths <path>.i.<name>."""

    operator = None  # "sum" or "product": the YAML key
    symbol = None

    def __init__(self, parts, columns=None):
        flat = []
        for part in parts:
            if not isinstance(part, Kernel):
                raise TypeError(f"{type(self).__name__}: parts must be kernels, got {part!r}")
            same = type(part) is type(self) and part.columns is None
            flat.extend(part.parts if same else [part])
        if len(flat) < 2:
            raise ValueError(f"{type(self).__name__} needs at least two parts, got {len(flat)}")
        self.parts = flat
        self.columns = columns

    def _state(self):
        return self.operator, [part._state() for part in self.parts], _plain(self.columns)

    def learned_hyperparameters(self, path="kernel"):
        """{learn path: (low, high) or None} of every part's learned hyperparameters."""
        learned = {}
        for i, part in enumerate(self.parts):
            learned.update(part.learned_hyperparameters(f"{path}.{i}"))
        return learned

    def with_learned(self, learned, path="kernel"):
        """A copy whose parts have the values of `learned` (a run's learned dict)."""
        return type(self)([part.with_learned(learned, f"{path}.{i}")
                           for i, part in enumerate(self.parts)], columns=self.columns)

    def _yaml_lines(self, inputs, dimension):
        lines = [f"{self.operator}:"]
        if self.columns is not None:
            names = self._check_columns(inputs)
            dimension = len(self.columns)
        for part in self.parts:
            first, *rest = part._yaml_lines(inputs, dimension)
            lines.append("  - " + first)
            lines.extend("    " + line for line in rest)
        if self.columns is not None:
            lines.append(f"columns: [{names}]")
        return lines

    def _part_repr(self, part):
        return repr(part)

    def __repr__(self):
        text = f" {self.symbol} ".join(self._part_repr(part) for part in self.parts)
        if self.columns is None:
            return text
        return f"{type(self).__name__}([{', '.join(map(repr, self.parts))}], " \
               f"columns={list(self.columns)!r})"


class Sum(_Composite):
    """k_1 + k_2 + ...: the sum of its parts' covariances (what + makes)."""

    operator, symbol = "sum", "+"


class Product(_Composite):
    """k_1 * k_2 * ...: the product of its parts' covariances (what * makes). Its parts have no
    noise (a White or a noise > 0 in a product is refused): put the noise in a sum."""

    operator, symbol = "product", "*"

    def _part_repr(self, part):
        return f"({part!r})" if isinstance(part, Sum) and part.columns is None else repr(part)


class PerClass(Kernel):
    """A kernel per class for the joint multi-class classifier (docs/multiclass.md, "A kernel
    per class"): `parts[c]` is the kernel of class c's latent GP (classes in the estimator's
    classes_ order), each any kernel. What kernel=[k_0, k_1, ...] makes; it is the whole kernel,
    never a part of a sum or product. Part c's hyperparameters have the paths <path>.c<c>.<name>
    (kernel.c2.length_scales)."""

    def __init__(self, parts):
        parts = list(parts)
        for part in parts:
            if not isinstance(part, Kernel) or isinstance(part, PerClass):
                raise TypeError(f"PerClass: parts must be kernels (not kernels per class), got "
                                f"{part!r}")
        if len(parts) < 2:
            raise ValueError(f"PerClass needs a kernel for each of at least two classes, got "
                             f"{len(parts)}")
        self.parts = parts
        self.columns = None

    def _not_a_part(self, other):
        raise TypeError("a kernel per class is the whole kernel, not a part of a sum or product: "
                        "combine each class's kernel instead")

    __add__ = __radd__ = __mul__ = __rmul__ = _not_a_part

    def _state(self):
        return "per_class", [part._state() for part in self.parts]

    def learned_hyperparameters(self, path="kernel"):
        """{learn path: (low, high) or None} of every class's learned hyperparameters."""
        learned = {}
        for c, part in enumerate(self.parts):
            learned.update(part.learned_hyperparameters(f"{path}.c{c}"))
        return learned

    def with_learned(self, learned, path="kernel"):
        """A copy whose kernels have the values of `learned` (a run's learned dict)."""
        return PerClass([part.with_learned(learned, f"{path}.c{c}")
                         for c, part in enumerate(self.parts)])

    def _yaml_lines(self, inputs, dimension):
        lines = []
        for part in self.parts:
            first, *rest = part._yaml_lines(inputs, dimension)
            lines.append("- " + first)
            lines.extend("  " + line for line in rest)
        return lines

    def __repr__(self):
        return f"PerClass([{', '.join(map(repr, self.parts))}])"
