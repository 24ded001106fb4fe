module Main exposing (main)

type alias Model = { count : Int }

type Msg = Inc | Dec

update : Msg -> Model -> Model
update msg model =
    model

main =
    text "hi"
