/* A C program that runs a compiled model, as a user of the C ABI would: compiled as C11 by
 * tests/aot/aot_test.cpp against the model's generated header (MODEL_HEADER, arrays prefixed
 * MODEL) and linked with the model's library. Every input element i is sin(i) (floats) or
 * i % 7 (integers); four threads run the model ten times each and must agree bit for bit; the
 * first output's bytes go to argv[1] for the test to compare with the runtime. A bad call must
 * fail with XPORT_INVALID_INPUT and a message. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include MODEL_HEADER

#define JOIN2(a, b) a##_##b
#define JOIN(a, b) JOIN2(a, b)
#define FIELD(name) JOIN(MODEL, name)

enum { kThreads = 4, kRuns = 10 };

static xport_model* model;
static xport_tensor inputs[64];
static size_t num_inputs;
static void* reference; /* the first output of the first run */
static size_t reference_bytes;
static int failures;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static size_t element_size(int32_t dtype) {
  switch (dtype) {
    case XPORT_BOOL: case XPORT_UINT8: case XPORT_INT8: return 1;
    case XPORT_INT16: case XPORT_FLOAT16: case XPORT_BFLOAT16: return 2;
    case XPORT_INT32: case XPORT_FLOAT32: return 4;
    case XPORT_COMPLEX128: return 16;
    default: return 8;
  }
}

static size_t numel(const xport_tensor* t) {
  size_t n = 1;
  for (int32_t d = 0; d < t->ndim; ++d) n *= (size_t)t->sizes[d];
  return n;
}

static void fill(xport_tensor* t) {
  size_t n = numel(t), i;
  t->data = malloc(n * element_size(t->dtype) + 1);
  for (i = 0; i < n; ++i) {
    switch (t->dtype) {
      case XPORT_FLOAT32: ((float*)t->data)[i] = sinf((float)i); break;
      case XPORT_FLOAT64: ((double*)t->data)[i] = sin((double)i); break;
      case XPORT_INT64: ((int64_t*)t->data)[i] = (int64_t)(i % 7); break;
      case XPORT_INT32: ((int32_t*)t->data)[i] = (int32_t)(i % 7); break;
      default: ((unsigned char*)t->data)[i] = (unsigned char)(i % 2); break;
    }
  }
}

static void* run(void* unused) {
  int r;
  (void)unused;
  for (r = 0; r < kRuns; ++r) {
    xport_outputs* out = NULL;
    xport_tensor first;
    size_t bytes;
    if (xport_model_run(model, inputs, num_inputs, &out) != XPORT_OK) {
      fprintf(stderr, "run failed: %s\n", xport_last_error());
      pthread_mutex_lock(&lock);
      ++failures;
      pthread_mutex_unlock(&lock);
      return NULL;
    }
    first = xport_outputs_get(out, 0);
    bytes = numel(&first) * element_size(first.dtype);
    pthread_mutex_lock(&lock);
    if (reference == NULL) {
      reference = malloc(bytes);
      memcpy(reference, first.data, bytes);
      reference_bytes = bytes;
    } else if (bytes != reference_bytes || memcmp(reference, first.data, bytes) != 0) {
      ++failures;
    }
    pthread_mutex_unlock(&lock);
    xport_outputs_free(out);
  }
  return NULL;
}

int main(int argc, char** argv) {
  pthread_t threads[kThreads];
  size_t i, next = 0;
  int t;
  xport_outputs* out = NULL;
  FILE* file;
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUT.bin\n", argv[0]);
    return 2;
  }
  if (xport_model_load(NULL, 1, &model) != XPORT_OK) {
    fprintf(stderr, "load failed: %s\n", xport_last_error());
    return 1;
  }
  num_inputs = xport_model_num_inputs(model);
  if (num_inputs > 64 || xport_model_num_outputs(model) < 1) return 1;
  for (i = 0; i < num_inputs; ++i) {
    inputs[i].dtype = FIELD(input_dtypes)[i];
    inputs[i].ndim = FIELD(input_ndims)[i];
    inputs[i].sizes = &FIELD(input_sizes)[next];
    inputs[i].strides = NULL;
    next += (size_t)inputs[i].ndim;
    fill(&inputs[i]);
  }
  for (t = 0; t < kThreads; ++t) pthread_create(&threads[t], NULL, run, NULL);
  for (t = 0; t < kThreads; ++t) pthread_join(threads[t], NULL);
  if (failures != 0 || reference == NULL) {
    fprintf(stderr, "%d runs failed or disagreed\n", failures);
    return 1;
  }
  if (num_inputs > 0 &&
      (xport_model_run(model, inputs, num_inputs - 1, &out) != XPORT_INVALID_INPUT ||
       strlen(xport_last_error()) == 0 || out != NULL)) {
    fprintf(stderr, "a call with too few inputs was not refused\n");
    return 1;
  }
  file = fopen(argv[1], "wb");
  if (file == NULL || fwrite(reference, 1, reference_bytes, file) != reference_bytes) return 1;
  fclose(file);
  printf("%s: %d threads x %d runs agree; isa '%s'\n", argv[0], kThreads, kRuns,
         xport_model_isa());
  for (i = 0; i < num_inputs; ++i) free(inputs[i].data);
  free(reference);
  xport_model_free(model);
  return 0;
}
