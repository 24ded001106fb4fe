defmodule Demo.UserService do
  @moduledoc "Finds users."

  def find_by_id(id) do
    nil
  end

  defp helper(x) when is_integer(x), do: x
end
