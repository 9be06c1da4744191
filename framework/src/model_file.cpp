// The model file (docs/models.md): a 512-byte text header in HDF5's user block, then an HDF5
// file with one dataset per archive entry. The header holds the format name, its version and
// the XXH3-128 checksum of every byte after the header, so a truncated, corrupted or foreign
// file is refused before the HDF5 library parses anything; the verified bytes are then opened
// as an in-memory file image (read once). Matrices are stored column-major as Eigen holds
// them: the HDF5 dataspace is cols x rows (readers in C order, e.g. h5py, transpose; R and
// Julia read rows x cols).
#include <hdf5.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <type_traits>

#include "quench/model_archive.h"
#include "quench/version.h"

namespace quench {
namespace {

constexpr std::size_t kHeaderSize = 512;  // HDF5 user blocks are powers of two >= 512
constexpr const char* kMagic = "quench-model";

// An HDF5 identifier closed by its own close function.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

std::string checksum_hex(const char* data, std::size_t size) {
  const XXH128_hash_t h = XXH3_128bits(data, size);
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return text;
}

std::string header_text(const std::string& checksum) {
  std::ostringstream out;
  out << kMagic << "\nformat_version: " << kModelFormatVersion << "\nchecksum: xxh3-128 "
      << checksum << " (of the bytes after the first " << kHeaderSize << ")\nwritten_by: quench "
      << kVersion << "\n";
  return out.str();
}

// ---- writing ----

class Writer {
 public:
  Writer(const std::string& path, const std::string& shown) : shown_(shown) {
    Handle fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
    check(fcpl.valid() && H5Pset_userblock(fcpl.get(), kHeaderSize) >= 0, "file properties");
    file_ = H5Fcreate(path.c_str(), H5F_ACC_EXCL, fcpl.get(), H5P_DEFAULT);
    check(file_ >= 0, "cannot create the file");
    text_ = H5Tcopy(H5T_C_S1);
    check(text_ >= 0 && H5Tset_size(text_, H5T_VARIABLE) >= 0 &&
              H5Tset_cset(text_, H5T_CSET_UTF8) >= 0,
          "string type");
  }
  ~Writer() {
    if (text_ >= 0) H5Tclose(text_);
    if (file_ >= 0) H5Fclose(file_);
  }
  void close() {
    check(H5Fclose(file_) >= 0, "cannot complete the file");
    file_ = -1;
  }

  void attribute(const char* name, const std::string& value) {
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    Handle a(H5Acreate2(file_, name, text_, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    const char* p = value.c_str();
    check(a.valid() && H5Awrite(a.get(), text_, &p) >= 0, std::string("attribute ") + name);
  }
  void attribute(const char* name, std::int64_t value) {
    Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    Handle a(H5Acreate2(file_, name, H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
             H5Aclose);
    check(a.valid() && H5Awrite(a.get(), H5T_NATIVE_INT64, &value) >= 0,
          std::string("attribute ") + name);
  }

  void entry(const std::string& name, const ModelArchive::Entry& e) {
    std::visit([&](const auto& v) { write(name, v); }, e);
  }

 private:
  void check(bool ok, const std::string& what) const {
    if (!ok) throw ModelFileError(shown_, "cannot write the model file: " + what);
  }
  void put(const std::string& name, hid_t file_type, hid_t memory_type,
           const std::vector<hsize_t>& dims, const void* data) {
    Handle space(dims.empty()
                     ? H5Screate(H5S_SCALAR)
                     : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                 H5Sclose);
    Handle links(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    check(space.valid() && links.valid() && H5Pset_create_intermediate_group(links.get(), 1) >= 0,
          "entry '" + name + "'");
    Handle d(H5Dcreate2(file_, name.c_str(), file_type, space.get(), links.get(), H5P_DEFAULT,
                        H5P_DEFAULT),
             H5Dclose);
    bool empty = false;
    for (const hsize_t n : dims) empty = empty || n == 0;
    check(d.valid() &&
              (empty || H5Dwrite(d.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0),
          "entry '" + name + "'");
  }
  void write(const std::string& name, double v) {
    put(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {}, &v);
  }
  void write(const std::string& name, std::int64_t v) {
    put(name, H5T_STD_I64LE, H5T_NATIVE_INT64, {}, &v);
  }
  void write(const std::string& name, const std::string& v) {
    const char* p = v.c_str();
    put(name, text_, text_, {}, &p);
  }
  void write(const std::string& name, const Eigen::VectorXd& v) {
    put(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {static_cast<hsize_t>(v.size())}, v.data());
  }
  void write(const std::string& name, const Eigen::MatrixXd& m) {
    put(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
        {static_cast<hsize_t>(m.cols()), static_cast<hsize_t>(m.rows())}, m.data());
  }
  void write(const std::string& name, const std::vector<std::string>& v) {
    std::vector<const char*> p;
    for (const std::string& s : v) p.push_back(s.c_str());
    put(name, text_, text_, {static_cast<hsize_t>(v.size())}, p.data());
  }

  std::string shown_;
  hid_t file_ = -1, text_ = -1;
};

void write_header(const std::string& path, const std::string& shown) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (!f.good() && !f.eof()) throw ModelFileError(shown, "cannot read back the written file");
  if (bytes.size() <= kHeaderSize) throw ModelFileError(shown, "the written file is incomplete");
  std::string header =
      header_text(checksum_hex(bytes.data() + kHeaderSize, bytes.size() - kHeaderSize));
  header.resize(kHeaderSize, '\0');
  f.clear();
  f.seekp(0);
  f.write(header.data(), static_cast<std::streamsize>(header.size()));
  f.flush();
  if (!f) throw ModelFileError(shown, "cannot write the file header");
}

void sync_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return;
  ::fsync(::fileno(f));
  std::fclose(f);
}

// ---- reading ----

std::string read_bytes(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    throw ModelFileError(path, "not a regular file");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw ModelFileError(path, std::string("cannot open the file: ") + std::strerror(errno));
  const std::streamoff size = in.tellg();
  if (size < 0) throw ModelFileError(path, "cannot read the file");
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.seekg(0);
  in.read(bytes.data(), size);
  if (in.gcount() != size) throw ModelFileError(path, "cannot read the file");
  return bytes;
}

// The header's "key: value" lines after the magic line.
void check_header(const std::string& path, const std::string& bytes) {
  const std::string magic = std::string(kMagic) + "\n";
  if (bytes.size() < magic.size() || bytes.compare(0, magic.size(), magic) != 0)
    throw ModelFileError(path, "not a quench model file (no '" + std::string(kMagic) +
                                   "' header; a model file is written by 'quench run' with "
                                   "outputs: {models: true})");
  if (bytes.size() <= kHeaderSize)
    throw ModelFileError(path, "truncated: " + std::to_string(bytes.size()) +
                                   " bytes, not even the header and an HDF5 file");
  const std::string header(bytes.data(), strnlen(bytes.data(), kHeaderSize));
  std::istringstream lines(header.substr(magic.size()));
  std::string line, version, checksum;
  while (std::getline(lines, line)) {
    if (line.rfind("format_version: ", 0) == 0) version = line.substr(16);
    if (line.rfind("checksum: xxh3-128 ", 0) == 0) checksum = line.substr(19, 32);
  }
  if (version != std::to_string(kModelFormatVersion))
    throw ModelFileError(path, "model format version '" + version + "', this quench reads " +
                                   std::to_string(kModelFormatVersion));
  const std::string actual = checksum_hex(bytes.data() + kHeaderSize, bytes.size() - kHeaderSize);
  if (checksum != actual)
    throw ModelFileError(path, "checksum mismatch (header " + checksum + ", contents " + actual +
                                   "): the file is truncated or corrupted");
}

class Reader {
 public:
  // Opens the verified bytes in place through the core driver's file-image callbacks: every
  // "allocation" of the image is the caller's buffer, every copy a no-op, every free nothing
  // (HDF5 only reads it; the buffer outlives the file).
  Reader(const std::string& path, std::string& bytes)
      : path_(path), image_{bytes.data(), bytes.size()} {
    H5FD_file_image_callbacks_t callbacks{};
    callbacks.image_malloc = [](size_t size, H5FD_file_image_op_t, void* udata) -> void* {
      auto* image = static_cast<Image*>(udata);
      return size == image->size ? image->data : nullptr;
    };
    callbacks.image_memcpy = [](void* dest, const void* src, size_t, H5FD_file_image_op_t,
                                void*) -> void* { return dest == src ? dest : nullptr; };
    callbacks.image_realloc = [](void*, size_t, H5FD_file_image_op_t, void*) -> void* {
      return nullptr;  // read-only
    };
    callbacks.image_free = [](void*, H5FD_file_image_op_t, void*) -> herr_t { return 0; };
    callbacks.udata_copy = [](void* udata) { return udata; };
    callbacks.udata_free = [](void*) -> herr_t { return 0; };
    callbacks.udata = &image_;
    Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    check(fapl.valid() && H5Pset_fapl_core(fapl.get(), 1 << 20, 0) >= 0 &&
              H5Pset_file_image_callbacks(fapl.get(), &callbacks) >= 0 &&
              H5Pset_file_image(fapl.get(), image_.data, image_.size) >= 0,
          "cannot open the HDF5 image");
    // The name only labels the in-memory image (the core driver refuses one that exists).
    file_ = H5Fopen("quench model image", H5F_ACC_RDONLY, fapl.get());
    check(file_ >= 0, "the contents are not a readable HDF5 file");
  }
  ~Reader() {
    if (file_ >= 0) H5Fclose(file_);
  }

  std::string text_attribute(const char* name) {
    Handle a(H5Aopen(file_, name, H5P_DEFAULT), H5Aclose);
    check(a.valid(), std::string("attribute '") + name + "' is missing");
    Handle type(H5Aget_type(a.get()), H5Tclose);
    check(H5Tget_class(type.get()) == H5T_STRING && H5Tis_variable_str(type.get()) > 0,
          std::string("attribute '") + name + "' is not a text");
    Handle memory(text_type(), H5Tclose);
    char* p = nullptr;
    check(H5Aread(a.get(), memory.get(), &p) >= 0 && p, std::string("attribute '") + name + "'");
    std::string s(p);
    H5free_memory(p);
    return s;
  }

  ModelArchive archive() {
    ModelArchive out(path_);
    std::vector<std::string> names;
    auto visit = [](hid_t, const char* name, const H5O_info_t* info, void* data) -> herr_t {
      if (info->type == H5O_TYPE_DATASET)
        static_cast<std::vector<std::string>*>(data)->push_back(name);
      return 0;
    };
    check(H5Ovisit2(file_, H5_INDEX_NAME, H5_ITER_INC, visit, &names, H5O_INFO_BASIC) >= 0,
          "cannot list the entries");
    for (const std::string& name : names) read(out, name);
    return out;
  }

 private:
  static hid_t text_type() {
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    return t;
  }
  void check(bool ok, const std::string& what) const {
    if (!ok) throw ModelFileError(path_, what);
  }

  void read(ModelArchive& out, const std::string& name) {
    Handle d(H5Dopen2(file_, name.c_str(), H5P_DEFAULT), H5Dclose);
    check(d.valid(), "entry '" + name + "' cannot be opened");
    Handle space(H5Dget_space(d.get()), H5Sclose);
    Handle type(H5Dget_type(d.get()), H5Tclose);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    check(rank >= 0 && rank <= 2, "entry '" + name + "' has rank " + std::to_string(rank));
    hsize_t dims[2] = {0, 0};
    H5Sget_simple_extent_dims(space.get(), dims, nullptr);
    const H5T_class_t kind = H5Tget_class(type.get());
    auto read_into = [&](hid_t memory_type, void* data, hsize_t count) {
      check(count == 0 || H5Dread(d.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0,
            "entry '" + name + "' cannot be read");
    };
    const auto index = [](hsize_t n) { return static_cast<Eigen::Index>(n); };
    const std::string entry = name.front() == '/' ? name.substr(1) : name;
    try {
      if (kind == H5T_FLOAT && H5Tget_size(type.get()) == 8) {
        if (rank == 0) {
          double v = 0;
          read_into(H5T_NATIVE_DOUBLE, &v, 1);
          out.put(entry, v);
        } else if (rank == 1) {
          Eigen::VectorXd v(index(dims[0]));
          read_into(H5T_NATIVE_DOUBLE, v.data(), dims[0]);
          out.put(entry, std::move(v));
        } else {
          Eigen::MatrixXd m(index(dims[1]), index(dims[0]));  // stored column-major
          read_into(H5T_NATIVE_DOUBLE, m.data(), dims[0] * dims[1]);
          out.put(entry, std::move(m));
        }
      } else if (kind == H5T_INTEGER && rank == 0 && H5Tget_size(type.get()) == 8) {
        std::int64_t v = 0;
        read_into(H5T_NATIVE_INT64, &v, 1);
        out.put(entry, v);
      } else if (kind == H5T_STRING && H5Tis_variable_str(type.get()) > 0 && rank <= 1) {
        const hsize_t n = rank == 0 ? 1 : dims[0];
        std::vector<char*> p(n, nullptr);
        Handle memory(text_type(), H5Tclose);
        read_into(memory.get(), p.data(), n);
        std::vector<std::string> texts;
        for (char* s : p) {
          texts.emplace_back(s ? s : "");
          H5free_memory(s);
        }
        if (rank == 0)
          out.put(entry, texts.front());
        else
          out.put(entry, std::move(texts));
      } else {
        check(false, "entry '" + name + "' has a type the model format does not use");
      }
    } catch (const std::invalid_argument&) {
      check(false, "entry '" + name + "' has an invalid name");
    }
  }

  struct Image {
    char* data;
    std::size_t size;
  };
  std::string path_;
  Image image_;
  hid_t file_ = -1;
};

// HDF5 prints its error stack to stderr by default; quench reports its own errors.
void silence_hdf5() {
  static const bool done = [] { return H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0; }();
  (void)done;
}

}  // namespace

void save_archive(const ModelArchive& archive, const std::string& path) {
  silence_hdf5();
  const std::string partial = path + ".partial-" + std::to_string(::getpid());
  std::remove(partial.c_str());
  try {
    {
      Writer w(partial, path);
      w.attribute("format", std::string(kMagic));
      w.attribute("format_version", kModelFormatVersion);
      for (const auto& [name, entry] : archive.entries()) w.entry(name, entry);
      w.close();
    }
    write_header(partial, path);
    sync_file(partial);
    if (std::rename(partial.c_str(), path.c_str()) != 0)
      throw ModelFileError(
          path, std::string("cannot move the model into place: ") + std::strerror(errno));
  } catch (...) {
    std::remove(partial.c_str());
    throw;
  }
}

ModelArchive load_archive(const std::string& path) {
  silence_hdf5();
  std::string bytes = read_bytes(path);
  check_header(path, bytes);
  Reader reader(path, bytes);
  if (reader.text_attribute("format") != kMagic)
    throw ModelFileError(path, "the HDF5 contents are not a quench model");
  return reader.archive();
}

}  // namespace quench
