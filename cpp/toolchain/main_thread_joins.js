// Linked into the threaded build (CMakeLists.txt). The core's parallel index builds wait for their
// threads (pthread_join, condition waits) on whatever thread called them, a page's main thread
// included, and Emscripten 3.1.6 then warns once a page: "Blocking on the main thread is very
// dangerous". The danger it names is a wait on something only the main thread can do: a Worker not
// yet started, or a call a thread proxies to the main thread. Neither happens here: the JS layer
// sizes the pool to the threads the core may use and the module starts only once the pool's Workers
// are loaded (PTHREAD_POOL_SIZE, POOL_SIZE_STRICT=2 refuses a thread beyond it), and the core's
// threads only compute (no I/O, no proxied call). So the check allows the wait silently, as the
// default ALLOW_BLOCKING_ON_MAIN_THREAD does, without a warning in every host's console.
mergeInto(LibraryManager.library, {
  emscripten_check_blocking_allowed: function () {},
});
