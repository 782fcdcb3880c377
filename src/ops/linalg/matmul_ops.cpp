// Matrix products: mm, bmm, addmm, baddbmm, dot (kernels on oneDNN's sgemm) and the composites
// matmul and linear, which decompose into them with views.
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/int_mm.h"
#include "ops/linalg/linalg_ops.h"
#include "ops/op_util.h"
#include "ops/typed_kernel.h"
#include "xport/ops/derivative.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

std::vector<TensorMeta> one(TensorMeta m) { return {std::move(m)}; }

bool same_size(const SymInt& a, const SymInt& b) {
  return a.is_same(b) || static_cast<bool>(a == b);
}

SymInt product(const std::vector<SymInt>& sizes) {
  SymInt p = 1;
  for (const SymInt& s : sizes) p = p * s;
  return p;
}

void check_rank(const OpArgs& args, const Tensor& t, int64_t rank, const char* what) {
  XPORT_CHECK(t.dim() == rank, InvalidInput, args.name(), ": ", what, " must be a ", rank,
              "-D tensor, got ", t.dim(), "-D of shape ", shape_str(t.sizes()));
}

void check_dtypes(const OpArgs& args, const Tensor& a, const char* a_name, const Tensor& b,
                  const char* b_name) {
  XPORT_CHECK(a.dtype() == b.dtype(), InvalidInput, args.name(), ": expected ", a_name, " and ",
              b_name, " to have the same dtype, got ", dtype_name(a.dtype()), " and ",
              dtype_name(b.dtype()), "; convert one with .to(dtype)");
  XPORT_CHECK(a.dtype() != DType::Bool, InvalidInput, args.name(),
              ": bool tensors are not supported; convert to an integer or floating dtype first");
}

// `self` must broadcast to `target` (expand's rules: trailing dims equal or 1).
void check_expandable(const OpArgs& args, const Tensor& self, const std::vector<SymInt>& target) {
  bool ok = self.dim() <= static_cast<int64_t>(target.size());
  for (int64_t i = 1; ok && i <= self.dim(); ++i) {
    const SymInt& s = self.sizes()[self.dim() - i];
    ok = size_is_one(s) || same_size(s, target[target.size() - i]);
  }
  XPORT_CHECK(ok, InvalidInput, args.name(), ": self of shape ", shape_str(self.sizes()),
              " cannot be broadcast to the product's shape ", shape_str(target));
}

// [n, k] @ [k, p] -> [n, p], checking both operands.
std::vector<SymInt> mm_shape(const OpArgs& args, const Tensor& a, const Tensor& b) {
  check_rank(args, a, 2, "the first matrix");
  check_rank(args, b, 2, "the second matrix");
  check_dtypes(args, a, "mat1", b, "mat2");
  XPORT_CHECK(same_size(a.sizes()[1], b.sizes()[0]), InvalidInput, args.name(),
              ": mat1 and mat2 shapes cannot be multiplied (", a.sizes()[0], "x", a.sizes()[1],
              " and ", b.sizes()[0], "x", b.sizes()[1], ")");
  return {a.sizes()[0], b.sizes()[1]};
}

// [B, n, k] @ [B, k, p] -> [B, n, p]; batches must match exactly (no broadcasting).
std::vector<SymInt> bmm_shape(const OpArgs& args, const Tensor& a, const Tensor& b) {
  check_rank(args, a, 3, "batch1");
  check_rank(args, b, 3, "batch2");
  check_dtypes(args, a, "batch1", b, "batch2");
  XPORT_CHECK(same_size(a.sizes()[0], b.sizes()[0]) && same_size(a.sizes()[2], b.sizes()[1]),
              InvalidInput, args.name(), ": batch1 of shape ", shape_str(a.sizes()),
              " and batch2 of shape ", shape_str(b.sizes()),
              " cannot be multiplied (batch sizes must be equal and batch1's last dim must equal "
              "batch2's middle dim); use matmul for broadcasting batches");
  return {a.sizes()[0], a.sizes()[1], b.sizes()[2]};
}

std::vector<TensorMeta> mm_meta(const OpArgs& args) {
  return one(contiguous_meta(mm_shape(args, args.tensor("self"), args.tensor("mat2")),
                             args.tensor("self").dtype()));
}

std::vector<TensorMeta> bmm_meta(const OpArgs& args) {
  return one(contiguous_meta(bmm_shape(args, args.tensor("self"), args.tensor("mat2")),
                             args.tensor("self").dtype()));
}

// addmm and baddbmm: self broadcasts to the product and has its dtype.
MetaFn add_product_meta(bool batched) {
  return [batched](const OpArgs& args) {
    const Tensor& self = args.tensor("self");
    const Tensor& a = args.tensor(batched ? "batch1" : "mat1");
    const Tensor& b = args.tensor(batched ? "batch2" : "mat2");
    std::vector<SymInt> sizes = batched ? bmm_shape(args, a, b) : mm_shape(args, a, b);
    check_dtypes(args, self, "self", a, batched ? "batch1" : "mat1");
    check_expandable(args, self, sizes);
    return one(contiguous_meta(std::move(sizes), a.dtype()));
  };
}

std::vector<TensorMeta> dot_meta(const OpArgs& args) {
  const Tensor& a = args.tensor("self");
  const Tensor& b = args.tensor("tensor");
  XPORT_CHECK(a.dim() == 1 && b.dim() == 1, InvalidInput, args.name(),
              ": 1-D tensors expected, got ", a.dim(), "-D and ", b.dim(), "-D tensors");
  check_dtypes(args, a, "self", b, "tensor");
  XPORT_CHECK(same_size(a.sizes()[0], b.sizes()[0]), InvalidInput, args.name(),
              ": inconsistent tensor size, expected tensor ", shape_str(a.sizes()), " and src ",
              shape_str(b.sizes()), " to have the same number of elements");
  return one(contiguous_meta({}, a.dtype()));
}

// _int_mm: uint8 or int8 [M, K] @ int8 [K, N] -> int32 [M, N] (PyTorch's CPU kernel's dtypes).
std::vector<TensorMeta> int_mm_meta(const OpArgs& args) {
  const Tensor& a = args.tensor("self");
  const Tensor& b = args.tensor("mat2");
  check_rank(args, a, 2, "self");
  check_rank(args, b, 2, "mat2");
  XPORT_CHECK(a.dtype() == DType::Int8 || a.dtype() == DType::UInt8, InvalidInput, args.name(),
              ": expects self of dtype int8 or uint8, got ", dtype_name(a.dtype()));
  XPORT_CHECK(b.dtype() == DType::Int8, InvalidInput, args.name(),
              ": expects mat2 of dtype int8, got ", dtype_name(b.dtype()));
  XPORT_CHECK(same_size(a.sizes()[1], b.sizes()[0]), InvalidInput, args.name(),
              ": self and mat2 shapes cannot be multiplied (", a.sizes()[0], "x", a.sizes()[1],
              " and ", b.sizes()[0], "x", b.sizes()[1], ")");
  return one(contiguous_meta({a.sizes()[0], b.sizes()[1]}, DType::Int32));
}

Tensor mm(const Tensor& a, const Tensor& b) { return call1(XPORT_OP("aten::mm"), {a, b}); }
Tensor bmm(const Tensor& a, const Tensor& b) { return call1(XPORT_OP("aten::bmm"), {a, b}); }

// ATen's matmul: dot, matrix-vector and matrix products, and batched products whose batch dims
// broadcast. A batch of matrices times one matrix folds the batch into rows (one mm); other
// batched cases expand both sides (stride-0 views, no copies when one side is not batched)
// and run one bmm.
Tensor matmul(const OpArgs& args, const Tensor& a, const Tensor& b) {
  const int64_t da = a.dim(), db = b.dim();
  XPORT_CHECK(da > 0 && db > 0, InvalidInput, args.name(),
              ": both arguments to matmul need to be at least 1-D, but they are ", da, "-D and ",
              db, "-D");
  if (da == 1 && db == 1) return call1(XPORT_OP("aten::dot"), {a, b});
  if (da == 2 && db == 1) return mm(a, b.unsqueeze(1)).squeeze(1);
  if (da == 1 && db == 2) return mm(a.unsqueeze(0), b).squeeze(0);
  if (da == 2 && db == 2) return mm(a, b);
  if (da >= 3 && db <= 2) {
    std::vector<SymInt> out_sizes(a.sizes().begin(), a.sizes().end() - 1);
    const Tensor folded = a.reshape({product(out_sizes), a.sizes().back()});
    if (db == 2) out_sizes.push_back(b.sizes()[1]);
    const Tensor r = mm(folded, db == 2 ? b : b.unsqueeze(1));
    return r.view(out_sizes);
  }
  const Tensor a2 = da == 1 ? a.unsqueeze(0) : a;
  const Tensor b2 = db == 1 ? b.unsqueeze(1) : b;
  const std::vector<SymInt>& as = a2.sizes();
  const std::vector<SymInt>& bs = b2.sizes();
  const std::vector<SymInt> batch =
      broadcast_shapes(args, std::vector<SymInt>(as.begin(), as.end() - 2),
                       std::vector<SymInt>(bs.begin(), bs.end() - 2));
  const SymInt n = as[as.size() - 2], k = as.back(), k2 = bs[bs.size() - 2], p = bs.back();
  XPORT_CHECK(same_size(k, k2), InvalidInput, args.name(), ": shapes ", shape_str(a.sizes()),
              " and ", shape_str(b.sizes()), " cannot be multiplied (", k, " vs ", k2, ")");
  const SymInt count = product(batch);
  auto expanded = [&](const Tensor& t, const SymInt& rows, const SymInt& cols) {
    std::vector<SymInt> sizes = batch;
    sizes.push_back(rows);
    sizes.push_back(cols);
    return t.expand(sizes).reshape({count, rows, cols});
  };
  const Tensor r = bmm(expanded(a2, n, k), expanded(b2, k2, p));
  std::vector<SymInt> out_sizes = batch;
  if (da > 1) out_sizes.push_back(n);
  if (db > 1) out_sizes.push_back(p);
  return r.view(out_sizes);
}

// ATen's linear (PyTorch 2.13): with a bias, a 2-D input, or a contiguous input with a 1-D bias,
// runs as one addmm over the input's rows (leading dims flattened), the bias folded into the
// GEMM, so it fails where addmm fails (a 1-D weight). Otherwise it is matmul, then the bias added
// in place: the bias must not enlarge the product.
Tensor linear(const OpArgs& args) {
  const Tensor& input = args.tensor("input");
  const Tensor& weight = args.tensor("weight");
  const Tensor bias = args.optional_tensor("bias");
  XPORT_CHECK(weight.dim() <= 2, InvalidInput, args.name(),
              ": weight must have at most 2 dims, got shape ", shape_str(weight.sizes()));
  const bool fused = bias.defined() && input.dim() >= 1 &&
                     (input.dim() == 2 || (input.is_contiguous() && bias.dim() == 1));
  if (fused) {
    std::vector<SymInt> lead(input.sizes().begin(), input.sizes().end() - 1);
    const Tensor rows =
        input.dim() == 2 ? input : input.reshape({product(lead), input.sizes().back()});
    const Tensor r = call1(XPORT_OP("aten::addmm"), {bias, rows, weight.t()});
    if (input.dim() == 2) return r;
    lead.push_back(weight.sizes()[0]);
    return r.view(lead);
  }
  const Tensor r = matmul(args, input, weight.t());
  if (!bias.defined()) return r;
  const Tensor out = r.add(bias);
  bool same_shape = out.dim() == r.dim();
  for (int64_t d = 0; same_shape && d < r.dim(); ++d)
    same_shape = out.sizes()[d].is_same(r.sizes()[d]);
  XPORT_CHECK(same_shape, InvalidInput, args.name(), ": bias of shape ", shape_str(bias.sizes()),
              " would enlarge the product of shape ", shape_str(r.sizes()),
              " (ATen adds the bias in place)");
  return out;
}

// ---- derivatives: d(A @ B) = dC @ B^T for A, A^T @ dC for B ----

void mm_derivative(Backward& b) {
  const Tensor g = b.grad();
  b.set("self", mm(g, b.args().tensor("mat2").t()));
  b.set("mat2", mm(b.args().tensor("self").t(), g));
}

void bmm_derivative(Backward& b) {
  const Tensor g = b.grad();
  b.set("self", bmm(g, b.args().tensor("mat2").transpose(1, 2)));
  b.set("mat2", bmm(b.args().tensor("self").transpose(1, 2), g));
}

// beta * self + alpha * (mat1 @ mat2); self broadcast to the product's shape.
void addmm_derivative(Backward& b) {
  const Tensor g = b.grad();
  const double beta = b.args().scalar("beta").to_double();
  const double alpha = b.args().scalar("alpha").to_double();
  b.set("self", beta == 1 ? g : g * beta);
  const Tensor scaled = alpha == 1 ? g : g * alpha;
  if (b.needs("mat1")) b.set("mat1", mm(scaled, b.args().tensor("mat2").t()));
  if (b.needs("mat2")) b.set("mat2", mm(b.args().tensor("mat1").t(), scaled));
}

}  // namespace

void register_matmul_ops() {
  register_op({
      .schema = "aten::mm(Tensor self, Tensor mat2) -> Tensor",
      .meta = mm_meta,
      .kernel = XPORT_KERNEL(cpu::mm_out),
      .derivative = mm_derivative,
      .core = true,
  });
  // Not tagged core by PyTorch, but it has no decomposition there either: PyTorch's
  // run_decompositions() keeps it (torchao's dynamic int8 programs), so a backend implements it
  // (ONNX: MatMulInteger).
  register_op({
      .schema = "aten::_int_mm(Tensor self, Tensor mat2) -> Tensor",
      .meta = int_mm_meta,
      .kernel = XPORT_KERNEL(cpu::int_mm_out),
      .core = true,
  });
  register_op({
      .schema = "aten::bmm(Tensor self, Tensor mat2) -> Tensor",
      .meta = bmm_meta,
      .kernel = XPORT_KERNEL(cpu::bmm_out),
      .derivative = bmm_derivative,
      .core = true,
  });
  register_op({
      .schema = "aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, "
                "Scalar alpha=1) -> Tensor",
      .meta = add_product_meta(false),
      .kernel = XPORT_KERNEL(cpu::addmm_out),
      .derivative = addmm_derivative,
      .core = true,
  });
  // Not in the core set: it decomposes to bmm, mul and add (ATen's decomposition), but keeps a
  // kernel that folds the scaling and the sum into the GEMM.
  register_op({
      .schema = "aten::baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, "
                "Scalar alpha=1) -> Tensor",
      .meta = add_product_meta(true),
      .kernel = XPORT_KERNEL(cpu::baddbmm_out),
      .decomp =
          [](const OpArgs& args) {
            const Tensor& self = args.tensor("self");
            Scalar beta = args.scalar("beta"), alpha = args.scalar("alpha");
            if (!is_floating(self.dtype())) {
              beta = Scalar(beta.to_int());
              alpha = Scalar(alpha.to_int());
            }
            Tensor r = bmm(args.tensor("batch1"), args.tensor("batch2"));
            if (alpha.to_double() != 1.0) r = r.mul(alpha);
            if (beta.to_double() == 0.0) return single(r);
            const Tensor scaled = beta.to_double() == 1.0 ? self : self.mul(beta);
            return single(scaled.add(r));
          },
  });
  register_op({
      .schema = "aten::dot(Tensor self, Tensor tensor) -> Tensor",
      .meta = dot_meta,
      .kernel = XPORT_KERNEL(cpu::dot_out),
      .decomp =
          [](const OpArgs& args) {
            const Tensor r =
                mm(args.tensor("self").unsqueeze(0), args.tensor("tensor").unsqueeze(1));
            return single(r.view(std::vector<SymInt>{}));
          },
  });
  register_op({
      .schema = "aten::matmul(Tensor self, Tensor other) -> Tensor",
      .decomp =
          [](const OpArgs& args) {
            return single(matmul(args, args.tensor("self"), args.tensor("other")));
          },
  });
  register_op({
      .schema = "aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
      .decomp = [](const OpArgs& args) { return single(linear(args)); },
  });
}

}  // namespace xport::ops
