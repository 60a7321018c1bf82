#include "engine/engine_options.h"

#include <stdexcept>
#include <string>

namespace needle {

std::string_view TransportName(TransportChoice choice) {
  switch (choice) {
    case TransportChoice::kAuto:
      return "auto";
    case TransportChoice::kStatic:
      return "static";
    case TransportChoice::kResident:
      return "resident";
  }
  return "?";
}

TransportChoice ParseTransport(std::string_view name) {
  for (TransportChoice c :
       {TransportChoice::kAuto, TransportChoice::kStatic, TransportChoice::kResident}) {
    if (name == TransportName(c)) return c;
  }
  throw std::invalid_argument("must be auto, static or resident, not '" + std::string(name) +
                              "'");
}

std::string_view GatherName(GatherChoice choice) {
  switch (choice) {
    case GatherChoice::kAuto:
      return "auto";
    case GatherChoice::kScan:
      return "scan";
    case GatherChoice::kRoute:
      return "route";
    case GatherChoice::kSplit:
      return "split";
  }
  return "?";
}

GatherChoice ParseGather(std::string_view name) {
  for (GatherChoice c :
       {GatherChoice::kAuto, GatherChoice::kScan, GatherChoice::kRoute, GatherChoice::kSplit}) {
    if (name == GatherName(c)) return c;
  }
  throw std::invalid_argument("must be auto, scan, route or split, not '" + std::string(name) +
                              "'");
}

std::string_view ShardModeName(ShardMode mode) {
  switch (mode) {
    case ShardMode::kStatic:
      return "static";
    case ShardMode::kAds:
      return "ads";
    case ShardMode::kOds:
      return "ods";
    case ShardMode::kAuto:
      return "auto";
  }
  return "?";
}

std::string_view TurnChoiceName(TurnChoice choice) {
  switch (choice) {
    case TurnChoice::kNever:
      return "never";
    case TurnChoice::kAuto:
      return "auto";
    case TurnChoice::kAlways:
      return "always";
  }
  return "?";
}

TurnChoice ParseTurnChoice(std::string_view name) {
  for (TurnChoice c : {TurnChoice::kNever, TurnChoice::kAuto, TurnChoice::kAlways}) {
    if (name == TurnChoiceName(c)) return c;
  }
  throw std::invalid_argument("must be never, auto or always, not '" + std::string(name) + "'");
}

ShardMode ParseShardMode(std::string_view name) {
  for (ShardMode m : {ShardMode::kStatic, ShardMode::kAds, ShardMode::kOds, ShardMode::kAuto}) {
    if (name == ShardModeName(m)) return m;
  }
  throw std::invalid_argument("must be static, ads, ods or auto, not '" + std::string(name) +
                              "'");
}

}  // namespace needle
