/* The C interface of a model compiled by `xport compile` (xport::aot::compile): a shared
 * library exporting these functions and nothing else. C and C++ programs call it; the archive the
 * model was compiled from (its weights and input contract) lies beside it as NAME.pt2.
 *
 *   xport_model* m;
 *   if (xport_model_load(NULL, 0, &m) != XPORT_OK) { puts(xport_last_error()); ... }
 *   xport_outputs* out;
 *   xport_model_run(m, inputs, 2, &out);   // inputs: the contract's tensors, in order
 *   xport_tensor y = xport_outputs_get(out, 0);
 *   xport_outputs_free(out); xport_model_free(m);
 *
 * Every function is thread-safe; one loaded model serves any number of threads. */
#ifndef XPORT_MODEL_ABI_H
#define XPORT_MODEL_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XPORT_MODEL_ABI_VERSION 1

/* What went wrong: xport::ErrorKind, plus one. xport_last_error() says more. */
typedef enum xport_status {
  XPORT_OK = 0,
  XPORT_CONSTRAINT_VIOLATION = 1,
  XPORT_DATA_DEPENDENT = 2,
  XPORT_UNSUPPORTED_OP = 3,
  XPORT_INVALID_SPEC = 4,
  XPORT_INVALID_INPUT = 5,
  XPORT_INVALID_ARCHIVE = 6,
  XPORT_INTERNAL = 7
} xport_status;

/* Element types: xport::DType's order. */
typedef enum xport_dtype {
  XPORT_BOOL = 0,
  XPORT_UINT8 = 1,
  XPORT_INT8 = 2,
  XPORT_INT16 = 3,
  XPORT_INT32 = 4,
  XPORT_INT64 = 5,
  XPORT_FLOAT16 = 6,
  XPORT_BFLOAT16 = 7,
  XPORT_FLOAT32 = 8,
  XPORT_FLOAT64 = 9,
  XPORT_COMPLEX64 = 10,
  XPORT_COMPLEX128 = 11
} xport_dtype;

/* A tensor in the caller's memory (inputs: read, and written where the program updates an
 * input in place) or the model's (outputs: valid until xport_outputs_free). `strides` in
 * elements, or NULL for contiguous. An int, float or bool input of the contract is a 0-d
 * tensor of int64, float64 or bool; a tensor list is its elements in order. */
typedef struct xport_tensor {
  void* data;
  int32_t dtype; /* xport_dtype */
  int32_t ndim;
  const int64_t* sizes;
  const int64_t* strides;
} xport_tensor;

typedef struct xport_model xport_model;
typedef struct xport_outputs xport_outputs;

/* XPORT_MODEL_ABI_VERSION of the library. */
uint32_t xport_model_abi_version(void);
/* Loads the model with the archive at `archive_path`, or NULL for the archive the library embeds
 * (compiled with embedded weights), else NAME.pt2 beside this library; kernels run on
 * `num_threads` threads (0: the machine's cores). */
xport_status xport_model_load(const char* archive_path, int32_t num_threads, xport_model** model);
/* The number of tensors xport_model_run takes (lists flattened, scalars as 0-d tensors), and
 * the number it returns. */
size_t xport_model_num_inputs(const xport_model* model);
size_t xport_model_num_outputs(const xport_model* model);
/* Checks the inputs against the contract (an input outside it is XPORT_INVALID_INPUT, with the
 * runtime's message) and runs the model. */
xport_status xport_model_run(const xport_model* model, const xport_tensor* inputs,
                             size_t num_inputs, xport_outputs** outputs);
size_t xport_outputs_count(const xport_outputs* outputs);
/* Output `index` (contiguous); a zeroed tensor when index is out of range. */
xport_tensor xport_outputs_get(const xport_outputs* outputs, size_t index);
void xport_outputs_free(xport_outputs* outputs);
void xport_model_free(xport_model* model);
/* The message of the last call on this thread that did not return XPORT_OK. */
const char* xport_last_error(void);
/* The instruction-set extensions the model's code needs ("" for the baseline). */
const char* xport_model_isa(void);
/* The .pt2 archive (weights, contract, graph) the library embeds, in its read-only data: sets
 * `*size` to its bytes (0 when it embeds none; it then reads NAME.pt2 beside it) and returns
 * where they start. */
const void* xport_model_embedded_archive(size_t* size);

#ifdef __cplusplus
}
#endif

#endif /* XPORT_MODEL_ABI_H */
